package dev.distlock.redis.script;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.RedisScript;

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

    private final RedisScript<Long> acquire = LockScripts.load("read-acquire.lua", Long.class);

    private final RedisScript<Long> release = LockScripts.load("read-release.lua", Long.class);

    @SuppressWarnings("rawtypes")
    private final RedisScript<List> renew = LockScripts.load("read-renew.lua", List.class);

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
            .grantCall(this.acquire, List.of(readers(hold), reader(hold), name(hold, "rw:write"),
                    name(hold, "rw:intent"), name(hold, "rw:fence")), hold.ownerToken(), grant.holdId(),
                    grant.leaseMillis(), this.context.tokenRetentionMillis(), grant.watchdogFlag(),
                    grant.reentryFlag());
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return this.context.scripts()
            .call(this.release, List.of(readers(hold), reader(hold)), hold.ownerToken(), release.holdId(),
                    hold.releaseChannel(), this.context.clientId(), this.context.tokenRetentionMillis(),
                    release.keepHeldMillis(), publishCommand(), release.watchdogFlag());
    }

    @Override
    public int[] renew(List<? extends LockTarget> holds, String leaseMillis) {
        List<String> keys = new ArrayList<>(2 * holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            keys.add(readers(hold));
            keys.add(reader(hold));
            tokens.add(hold.ownerToken());
        }
        return this.context.scripts().renewBatch(this.renew, keys, tokens, leaseMillis);
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
