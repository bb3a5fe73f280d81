package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.util.List;

/**
 * The write side of a read/write lock (structures in {@link ReadLock}). The writer's hash has the plain lock's layout,
 * so release.lua and renew.lua serve it; write-acquire.lua also waits for the readers and records the waiting
 * writer's intent, which write-withdraw.lua drops when the writer gives up. A release wakes every waiter.
 */
final class WriteLock extends LockType {

    /** The writer's hash suffix: {@code <prefix>:{key}:rw:write}. */
    private static final String WRITER = "rw:write";

    static final ScriptLayout<Long> ACQUIRE = ScriptLayout.load("write-acquire.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, TOKEN_RETENTION_MILLIS, PLACE_LEASE_MILLIS);

    static final ScriptLayout<Long> WITHDRAW = ScriptLayout.load("write-withdraw.lua", Long.class, OWNER_TOKEN,
            CHANNEL, PUBLISH_COMMAND, MESSAGE);

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
            .grantCall(ACQUIRE, List.of(writer(hold), name(hold, "rw:readers"), name(hold, "rw:intent"),
                    name(hold, "rw:fence")), hold.ownerToken(), grant,
                    LockScripts.grantArguments(ACQUIRE, hold.ownerToken(), grant)
                        .set(TOKEN_RETENTION_MILLIS, this.context.tokenRetentionMillis())
                        .set(PLACE_LEASE_MILLIS, grant.waiting() ? this.context.waiterLeaseMillis() : "0"));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return releasePlainHash(hold, WRITER, release, false);
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, String leaseMillis) {
        return renewPlainHashes(holds, WRITER, leaseMillis);
    }

    @Override
    public boolean leave(LockTarget hold) {
        return this.context.scripts()
            .run(WITHDRAW.script(), List.of(name(hold, "rw:intent"), writer(hold)), WITHDRAW.newArguments()
                .set(OWNER_TOKEN, hold.ownerToken())
                .set(CHANNEL, hold.releaseChannel())
                .set(PUBLISH_COMMAND, publishCommand())
                .set(MESSAGE, this.context.clientId())
                .toArray()) == 1;
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
        return List.of(writer(hold), name(hold, "rw:readers"), name(hold, "rw:intent"), name(hold, "rw:fence"),
                freedMark(hold, WRITER));
    }

    private String writer(LockTarget hold) {
        return name(hold, WRITER);
    }
}
