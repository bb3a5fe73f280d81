package dev.distlock.redis.script;

import java.util.List;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The write side of a read/write lock (structures in {@link ReadLock}). The writer's hash has the plain lock's layout,
 * so release.lua and renew.lua serve it; write-acquire.lua also waits for the readers and records the waiting
 * writer's intent, which write-withdraw.lua drops when the writer gives up. A release wakes every waiter.
 */
final class WriteLock extends LockType {

    /** The writer's hash suffix: {@code <prefix>:{key}:rw:write}. */
    private static final String WRITER = "rw:write";

    private final RedisScript<Long> acquire = LockScripts.load("write-acquire.lua", Long.class);

    private final RedisScript<Long> withdraw = LockScripts.load("write-withdraw.lua", Long.class);

    WriteLock(Context context) {
        super(context);
    }

    @Override
    public String releaseChannel(String key) {
        return this.context.keys().name(key, "rw:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return this.context.scripts()
            .grantCall(this.acquire, List.of(writer(hold), name(hold, "rw:readers"), name(hold, "rw:intent"),
                    name(hold, "rw:fence")), hold.ownerToken(), grant.holdId(), grant.leaseMillis(),
                    this.context.tokenRetentionMillis(), grant.waiting() ? this.context.waiterLeaseMillis() : "0",
                    grant.watchdogFlag(), grant.reentryFlag());
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return releasePlainHash(hold, WRITER, release, false);
    }

    @Override
    public int[] renew(List<? extends LockTarget> holds, String leaseMillis) {
        return renewPlainHashes(holds, WRITER, leaseMillis);
    }

    @Override
    public boolean leave(LockTarget hold) {
        return this.context.scripts()
            .run(this.withdraw, List.of(name(hold, "rw:intent"), writer(hold)), hold.ownerToken(),
                    hold.releaseChannel(), this.context.clientId(), publishCommand()) == 1;
    }

    @Override
    public WakeUp wakeUp() {
        return WakeUp.ALL;
    }

    @Override
    public boolean keepsPlace() {
        return true;
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(writer(hold), name(hold, "rw:readers"), name(hold, "rw:intent"), name(hold, "rw:fence"));
    }

    private String writer(LockTarget hold) {
        return name(hold, WRITER);
    }
}
