package dev.distlock.redis.script;

import java.util.List;

/** The plain lock: the hash {@code <prefix>:{key}:lock} (acquire.lua, release.lua, handoff.lua, renew.lua). */
final class ExclusiveLock extends LockType {

    /** The lock hash's suffix: {@code <prefix>:{key}:lock}, as {@link LockKeys#lockHash} names it. */
    private static final String HASH = "lock";

    ExclusiveLock(Context context) {
        super(context);
    }

    @Override
    public String releaseChannel(String key) {
        return this.context.keys().releaseChannel(key);
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return LockCalls.acquire(this.context.scripts(), lockHash(hold), hold.ownerToken(), grant);
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return LockCalls.release(this.context.scripts(), lockHash(hold), freedMark(hold, HASH), hold.ownerToken(),
                release, hold.releaseChannel(), this.context.clientId(), this.context.tokenRetention(),
                publishCommand(), true);
    }

    @Override
    public ScriptCall handOffCall(LockTarget hold, Release release, LockTarget next, Grant grant,
            boolean lastOfRun) {
        return LockCalls.handOff(this.context.scripts(), lockHash(hold), freedMark(hold, HASH), hold.ownerToken(),
                release, next.ownerToken(), grant, lastOfRun, this.context.tokenRetention());
    }

    @Override
    public boolean handsOff() {
        return true;
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos) {
        return renewPlainHashes(holds, HASH, leaseNanos);
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(lockHash(hold), freedMark(hold, HASH));
    }

    private String lockHash(LockTarget hold) {
        return name(hold, HASH);
    }
}
