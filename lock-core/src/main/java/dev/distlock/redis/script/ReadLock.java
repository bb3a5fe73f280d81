package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FENCING_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.KEEP_HELD_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockMode;

/**
 * The read side of a read/write lock. Its Redis structures, shared with {@link WriteLock}:
 * {@code <prefix>:{key}:rw:readers} (a sorted set of reader tokens by lease end), one hash per reader
 * {@code <prefix>:{key}:rw:reader:<token>} (its holds and fencing token), {@code <prefix>:{key}:rw:write} (the
 * writer's hash), {@code <prefix>:{key}:rw:intent} (a waiting writer) and {@code <prefix>:{key}:rw:fence} (the last
 * fencing token). A release by the last reader wakes every waiter (read-acquire.lua, read-release.lua,
 * read-renew.lua).
 */
final class ReadLock extends LockType {

    static final ScriptLayout<Long> ACQUIRE = ScriptLayout.load("read-acquire.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, TOKEN_RETENTION_MILLIS);

    static final ScriptLayout<Long> RELEASE = ScriptLayout.load("read-release.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND, MESSAGE);

    @SuppressWarnings("rawtypes")
    static final ScriptLayout<List> RENEW = ScriptLayout.load("read-renew.lua", List.class, LEASE_MILLIS,
            OWNER_TOKEN);

    ReadLock(Context context) {
        super(context);
    }

    @Override
    public String releaseChannel(String key) {
        return this.context.keys().name(key, "rw:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return this.context.scripts()
            .grantCall(ACQUIRE, List.of(readers(hold), reader(hold), name(hold, "rw:write"),
                    name(hold, "rw:intent"), name(hold, "rw:fence")), hold.ownerToken(), grant,
                    LockScripts.grantArguments(ACQUIRE, hold.ownerToken(), grant)
                        .set(TOKEN_RETENTION_MILLIS, this.context.tokenRetentionMillis()));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return this.context.scripts()
            .call(RELEASE.script(), List.of(readers(hold), reader(hold)),
                    LockScripts.releaseArguments(RELEASE, hold.ownerToken(), release,
                            this.context.tokenRetentionMillis(), hold.releaseChannel(), publishCommand())
                        .set(MESSAGE, this.context.clientId())
                        .toArray());
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, String leaseMillis) {
        List<String> keys = new ArrayList<>(2 * holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            keys.add(readers(hold));
            keys.add(reader(hold));
            tokens.add(hold.ownerToken());
        }
        return this.context.scripts().renewals().batch(RENEW, keys, tokens, leaseMillis);
    }

    @Override
    public WakeUp wakeUp() {
        return WakeUp.ALL;
    }

    @Override
    public @Nullable LockMode sharesOwnerTokenWith() {
        return LockMode.WRITE;
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(readers(hold), reader(hold), name(hold, "rw:write"), name(hold, "rw:intent"),
                name(hold, "rw:fence"));
    }

    private String readers(LockTarget hold) {
        return name(hold, "rw:readers");
    }

    private String reader(LockTarget hold) {
        return name(hold, "rw:reader:" + hold.ownerToken());
    }
}
