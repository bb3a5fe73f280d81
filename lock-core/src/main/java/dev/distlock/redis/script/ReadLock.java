package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;

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

    /** Names this type's keys: {@code <prefix>:{key}:<suffix>}. */
    private final LockKeys names;

    ReadLock(Context context) {
        super(context);
        this.names = context.keys();
    }

    @Override
    public String releaseChannel(String key) {
        return this.names.name(key, "rw:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        return LockCalls.grant(this.context.scripts(), Scripts.READ_ACQUIRE, List.of(readers(hold), reader(hold),
                this.names.name(hold, "rw:write"), this.names.name(hold, "rw:intent"),
                this.names.name(hold, "rw:fence")),
                LockCalls.grantArguments(Scripts.READ_ACQUIRE, hold.ownerToken(), grant)
                    .setMillis(TOKEN_RETENTION_MILLIS, this.context.tokenRetention()));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return LockCalls.call(this.context.scripts(), Scripts.READ_RELEASE, List.of(readers(hold), reader(hold)),
                LockCalls.releaseArguments(Scripts.READ_RELEASE, hold.ownerToken(), release,
                        this.context.tokenRetention(), hold.releaseChannel(), this.context.pubSub().publishCommand())
                    .set(MESSAGE, this.context.clientId())
                    .toArray());
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos) {
        List<String> keys = new ArrayList<>(2 * holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            keys.add(readers(hold));
            keys.add(reader(hold));
            tokens.add(hold.ownerToken());
        }
        return this.context.scripts().renewals().batch(Scripts.READ_RENEW, keys, tokens, leaseNanos);
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
        return List.of(readers(hold), reader(hold), this.names.name(hold, "rw:write"),
                this.names.name(hold, "rw:intent"), this.names.name(hold, "rw:fence"));
    }

    private String readers(LockTarget hold) {
        return this.names.name(hold, "rw:readers");
    }

    private String reader(LockTarget hold) {
        return this.names.name(hold, "rw:reader:" + hold.ownerToken());
    }
}
