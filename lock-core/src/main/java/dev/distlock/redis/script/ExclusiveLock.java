package dev.distlock.redis.script;

import java.util.List;

/**
 * The plain lock: {@code <prefix>:{key}:lock}, a string in the single-hold layout or a hash (acquire.lua,
 * single-hold.lua, release.lua, handoff.lua, renew.lua).
 */
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
        return this.context.scripts().acquire(lockHash(hold), hold.ownerToken(), grant, hold.mayBeSingleHold());
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return releasePlainHash(hold, HASH, release, true, hold.mayBeSingleHold());
    }

    @Override
    public ScriptCall handOffCall(LockTarget hold, Release release, LockTarget next, Grant grant,
            boolean lastOfRun) {
        return this.context.scripts().handOff(lockHash(hold), freedMark(hold, HASH), hold.ownerToken(), release,
                next.ownerToken(), grant, lastOfRun, hold.mayBeSingleHold(), this.context.tokenRetentionMillis());
    }

    @Override
    public boolean handsOff() {
        return true;
    }

    @Override
    public int[] renew(List<? extends LockTarget> holds, String leaseMillis) {
        return renewPlainHashes(holds, HASH, leaseMillis, true);
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(lockHash(hold), freedMark(hold, HASH));
    }

    private String lockHash(LockTarget hold) {
        return name(hold, HASH);
    }
}
