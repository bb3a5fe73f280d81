package dev.distlock.redis.script;

import java.util.List;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fair lock: {@code <prefix>:{key}:fair:lock} (the plain lock's hash layout, so renew.lua serves it),
 * {@code <prefix>:{key}:fair:queue} (waiting tokens by arrival) and {@code <prefix>:{key}:fair:places} (when each
 * waiter's place lapses unless refreshed). A release publishes the first waiter's token, which wakes only that waiter;
 * so does a grant for the waiter that is first after it, which then re-checks when the new holder's lease ends
 * (fair-acquire.lua, fair-release.lua, fair-leave.lua).
 */
final class FairLock extends LockType {

    private final RedisScript<Long> acquire = LockScripts.load("fair-acquire.lua", Long.class);

    private final RedisScript<Long> release = LockScripts.load("fair-release.lua", Long.class);

    private final RedisScript<Long> leave = LockScripts.load("fair-leave.lua", Long.class);

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
            .grantCall(this.acquire, keys(hold), hold.ownerToken(), grant.holdId(), grant.leaseMillis(),
                    grant.waiting() ? this.context.waiterLeaseMillis() : "0", grant.watchdogFlag(),
                    grant.reentryFlag(), hold.releaseChannel(), publishCommand());
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return this.context.scripts()
            .call(this.release, keys(hold), hold.ownerToken(), release.holdId(), hold.releaseChannel(),
                    this.context.tokenRetentionMillis(), release.keepHeldMillis(), publishCommand(),
                    Long.toString(release.fencingToken()), release.watchdogFlag());
    }

    @Override
    public int[] renew(List<? extends LockTarget> holds, String leaseMillis) {
        return renewPlainHashes(holds, "fair:lock", leaseMillis);
    }

    @Override
    public boolean leave(LockTarget hold) {
        this.context.scripts().run(this.leave, keys(hold), hold.ownerToken(), hold.releaseChannel(), publishCommand());
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
        return List.of(name(hold, "fair:lock"), name(hold, "fair:queue"), name(hold, "fair:places"));
    }
}
