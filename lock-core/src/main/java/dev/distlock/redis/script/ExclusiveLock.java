package dev.distlock.redis.script;

import java.util.List;

/** The plain lock: the hash {@code <prefix>:{key}:lock} (acquire.lua, release.lua, handoff.lua, renew.lua). */
final class ExclusiveLock extends LockType {

    /** The lock hash's suffix: {@code <prefix>:{key}:lock}, as {@link LockKeys#lockHash} names it. */
    private static final String HASH = "lock";

    /** Names this type's keys: {@code <prefix>:{key}:<suffix>}. */
    private final LockKeys names;

    ExclusiveLock(Context context) {
        super(context);
        this.names = context.keys();
    }

    @Override
    public String releaseChannel(String key) {
        return this.names.releaseChannel(key);
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return LockCalls.acquire(this.context.scripts(), lockHash(hold), hold.ownerToken(), grant);
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return LockCalls.release(this.context.scripts(), lockHash(hold), freedMark(hold), hold.ownerToken(),
                release, hold.releaseChannel(), this.context.clientId(), this.context.tokenRetention(),
                this.context.pubSub().publishCommand(), true);
    }

    @Override
    public ScriptCall handOffCall(LockTarget hold, Release release, LockTarget next, Grant grant,
            boolean lastOfRun) {
        return LockCalls.handOff(this.context.scripts(), lockHash(hold), freedMark(hold), hold.ownerToken(),
                release, next.ownerToken(), grant, lastOfRun, this.context.tokenRetention());
    }

    @Override
    public boolean handsOff() {
        return true;
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos) {
        return LockCalls.renewPlainHashes(this.context.scripts(), this.names, holds, HASH, leaseNanos);
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(lockHash(hold), freedMark(hold));
    }

    private String lockHash(LockTarget hold) {
        return this.names.name(hold, HASH);
    }

    private String freedMark(LockTarget hold) {
        return this.names.freedMark(hold, HASH);
    }
}
