package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FENCING_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.KEEP_HELD_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.util.List;

/**
 * The fair lock: {@code <prefix>:{key}:fair:lock} (the plain lock's hash layout, so renew.lua serves it),
 * {@code <prefix>:{key}:fair:queue} (waiting tokens by arrival) and {@code <prefix>:{key}:fair:places} (when each
 * waiter's place lapses unless refreshed). A release publishes the first waiter's token, which wakes only that waiter;
 * so does a grant for the waiter that is first after it, which then re-checks when the new holder's lease ends
 * (fair-acquire.lua, fair-release.lua, fair-leave.lua).
 */
final class FairLock extends LockType {

    static final ScriptLayout<Long> ACQUIRE = ScriptLayout.load("fair-acquire.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, PLACE_LEASE_MILLIS, CHANNEL, PUBLISH_COMMAND);

    static final ScriptLayout<Long> RELEASE = ScriptLayout.load("fair-release.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND);

    static final ScriptLayout<Long> LEAVE = ScriptLayout.load("fair-leave.lua", Long.class, OWNER_TOKEN, CHANNEL,
            PUBLISH_COMMAND);

    FairLock(Context context) {
        super(context);
    }

    @Override
    public String releaseChannel(String key) {
        return this.context.keys().name(key, "fair:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return this.context.scripts()
            .grantCall(ACQUIRE, lockKeys(hold), hold.ownerToken(), grant,
                    LockScripts.grantArguments(ACQUIRE, hold.ownerToken(), grant)
                        .set(PLACE_LEASE_MILLIS, grant.waiting() ? this.context.waiterLeaseMillis() : "0")
                        .set(CHANNEL, hold.releaseChannel())
                        .set(PUBLISH_COMMAND, publishCommand()));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return this.context.scripts()
            .call(RELEASE.script(), keys(hold),
                    LockScripts.releaseArguments(RELEASE, hold.ownerToken(), release,
                    this.context.tokenRetentionMillis(), hold.releaseChannel(), publishCommand()).toArray());
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, String leaseMillis) {
        return renewPlainHashes(holds, "fair:lock", leaseMillis);
    }

    @Override
    public boolean leave(LockTarget hold) {
        this.context.scripts()
            .run(LEAVE.script(), lockKeys(hold), LEAVE.newArguments()
                .set(OWNER_TOKEN, hold.ownerToken())
                .set(CHANNEL, hold.releaseChannel())
                .set(PUBLISH_COMMAND, publishCommand())
                .toArray());
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
        return List.of(name(hold, "fair:lock"), name(hold, "fair:queue"), name(hold, "fair:places"),
                freedMark(hold, "fair:lock"));
    }

    /** The keys a grant and a waiter's leaving take: all but the freed mark, which only a release needs. */
    private List<String> lockKeys(LockTarget hold) {
        return keys(hold).subList(0, 3);
    }
}
