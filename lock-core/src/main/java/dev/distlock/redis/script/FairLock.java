package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;

import java.time.Duration;
import java.util.List;

/**
 * The fair lock: {@code <prefix>:{key}:fair:lock} (the plain lock's hash layout, so renew.lua serves it),
 * {@code <prefix>:{key}:fair:queue} (waiting tokens by arrival) and {@code <prefix>:{key}:fair:places} (when each
 * waiter's place lapses unless refreshed). A release publishes the first waiter's token, which wakes only that waiter;
 * so does a grant for the waiter that is first after it, which then re-checks when the new holder's lease ends
 * (fair-acquire.lua, fair-release.lua, fair-leave.lua).
 */
final class FairLock extends LockType {

    /** Names this type's keys: {@code <prefix>:{key}:<suffix>}. */
    private final LockKeys names;

    FairLock(Context context) {
        super(context);
        this.names = context.keys();
    }

    @Override
    public String releaseChannel(String key) {
        return this.names.name(key, "fair:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return LockCalls.grant(this.context.scripts(), Scripts.FAIR_ACQUIRE, lockKeys(hold),
                LockCalls.grantArguments(Scripts.FAIR_ACQUIRE, hold.ownerToken(), grant)
                    .setMillis(PLACE_LEASE_MILLIS, grant.waiting() ? this.context.waiterLease() : Duration.ZERO)
                    .set(CHANNEL, hold.releaseChannel())
                    .set(PUBLISH_COMMAND, this.context.pubSub().publishCommand()));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return LockCalls.call(this.context.scripts(), Scripts.FAIR_RELEASE, keys(hold),
                LockCalls.releaseArguments(Scripts.FAIR_RELEASE, hold.ownerToken(), release,
                        this.context.tokenRetention(), hold.releaseChannel(), this.context.pubSub().publishCommand())
                    .toArray());
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos) {
        return LockCalls.renewPlainHashes(this.context.scripts(), this.names, holds, "fair:lock", leaseNanos);
    }

    @Override
    public boolean leave(LockTarget hold) {
        LockCalls.call(this.context.scripts(), Scripts.FAIR_LEAVE, lockKeys(hold), Scripts.FAIR_LEAVE.newArguments()
            .set(OWNER_TOKEN, hold.ownerToken())
            .set(CHANNEL, hold.releaseChannel())
            .set(PUBLISH_COMMAND, this.context.pubSub().publishCommand())
            .toArray())
            .run();
        return false; // the next waiter is named in a message
    }

    @Override
    public WakeUp wakeUp() {
        return WakeUp.NAMED;
    }

    @Override
    public boolean keepsPlace() {
        return true;
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(this.names.name(hold, "fair:lock"), this.names.name(hold, "fair:queue"),
                this.names.name(hold, "fair:places"), this.names.freedMark(hold, "fair:lock"));
    }

    /** The keys a grant and a waiter's leaving take: all but the freed mark, which only a release needs. */
    private List<String> lockKeys(LockTarget hold) {
        return keys(hold).subList(0, 3);
    }
}
