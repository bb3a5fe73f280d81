package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;

import java.time.Duration;
import java.util.List;

/**
 * The write side of a read/write lock (structures in {@link ReadLock}). The writer's hash has the plain lock's layout,
 * so release.lua and renew.lua serve it; write-acquire.lua also waits for the readers and records the waiting
 * writer's intent, which write-withdraw.lua drops when the writer gives up. A release wakes every waiter.
 */
final class WriteLock extends LockType {

    /** The writer's hash suffix: {@code <prefix>:{key}:rw:write}. */
    private static final String WRITER = "rw:write";

    /** Names this type's keys: {@code <prefix>:{key}:<suffix>}. */
    private final LockKeys names;

    WriteLock(Context context) {
        super(context);
        this.names = context.keys();
    }

    @Override
    public String releaseChannel(String key) {
        return this.names.name(key, "rw:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return LockCalls.grant(this.context.scripts(), Scripts.WRITE_ACQUIRE, List.of(writer(hold),
                this.names.name(hold, "rw:readers"), this.names.name(hold, "rw:intent"),
                this.names.name(hold, "rw:fence")),
                LockCalls.grantArguments(Scripts.WRITE_ACQUIRE, hold.ownerToken(), grant)
                    .setMillis(TOKEN_RETENTION_MILLIS, this.context.tokenRetention())
                    .setMillis(PLACE_LEASE_MILLIS, grant.waiting() ? this.context.waiterLease() : Duration.ZERO));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return LockCalls.release(this.context.scripts(), writer(hold), freedMark(hold), hold.ownerToken(),
                release, hold.releaseChannel(), this.context.clientId(), this.context.tokenRetention(),
                this.context.pubSub().publishCommand(), false);
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos) {
        return LockCalls.renewPlainHashes(this.context.scripts(), this.names, holds, WRITER, leaseNanos);
    }

    @Override
    public boolean leave(LockTarget hold) {
        return LockCalls.call(this.context.scripts(), Scripts.WRITE_WITHDRAW,
                List.of(this.names.name(hold, "rw:intent"), writer(hold)), Scripts.WRITE_WITHDRAW.newArguments()
                    .set(OWNER_TOKEN, hold.ownerToken())
                    .set(CHANNEL, hold.releaseChannel())
                    .set(PUBLISH_COMMAND, this.context.pubSub().publishCommand())
                    .set(MESSAGE, this.context.clientId())
                    .toArray())
            .run() == 1;
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
        return List.of(writer(hold), this.names.name(hold, "rw:readers"), this.names.name(hold, "rw:intent"),
                this.names.name(hold, "rw:fence"), freedMark(hold));
    }

    private String writer(LockTarget hold) {
        return this.names.name(hold, WRITER);
    }

    private String freedMark(LockTarget hold) {
        return this.names.freedMark(hold, WRITER);
    }
}
