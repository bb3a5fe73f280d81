package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;

import dev.distlock.HeldLock;
import dev.distlock.KeyText;
import dev.distlock.LockHolder;
import dev.distlock.LockInstance;
import dev.distlock.LockMode;
import dev.distlock.LockPermissionException;
import dev.distlock.LockStatus;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.script.LockKeys;

/**
 * Reads one key's locks of every type from Redis for {@link RedisLockService#inspect}: plain commands (GET, HGETALL,
 * HMGET, PTTL, ZRANGE, TIME), never a script, so that the instance records, outside the lock's Cluster slot, are
 * read the same way. The plain lock's hash is parsed by {@link PlainLock}; the other structures are those of
 * read-acquire.lua, sem-acquire.lua and fair-acquire.lua. Holders' instances come from their owner tokens (see
 * {@link InstanceRecord}).
 */
final class LockStatusReader {

    /** The most readers, semaphore holders and queued waiters one inspection lists. */
    static final int MAX_LISTED = 100;

    private final StringRedisTemplate redis;

    private final LockKeys keys;

    private final Supplier<Collection<Hold>> ownHolds;

    LockStatusReader(StringRedisTemplate redis, LockKeys keys, Supplier<Collection<Hold>> ownHolds) {
        this.redis = redis;
        this.keys = keys;
        this.ownHolds = ownHolds;
    }

    /** One holder as Redis has it, before its instance is looked up. */
    private record Found(String ownerToken, long fence, boolean sinceFromFence, int holds, int permits,
            long leaseLeftMillis, @Nullable String note) {
    }

    /** One type's holders and waiters, before their instances are looked up. */
    private record Raw(LockMode mode, List<Found> holders, List<String> waiters, boolean othersWaiting) {
    }

    List<LockStatus> read(String key) {
        try {
            Long time = this.redis.execute((RedisCallback<Long>) connection -> connection.serverCommands().time());
            long now = (time != null) ? time : System.currentTimeMillis();
            List<Raw> raws = new ArrayList<>();
            exclusive(key, now, raws);
            fair(key, now, raws);
            readWrite(key, now, raws);
            semaphore(key, now, raws);
            List<String> ids = new ArrayList<>();
            raws.forEach(raw -> {
                raw.holders.forEach(found -> ids.add(instanceId(found.ownerToken)));
                raw.waiters.forEach(token -> ids.add(instanceId(token)));
            });
            Map<String, InstanceRecord.Found> instances = InstanceRecord.read(this.redis, this.keys.prefix(), ids, now);
            List<LockStatus> states = new ArrayList<>(raws.size());
            for (Raw raw : raws) {
                List<LockHolder> holders = new ArrayList<>();
                for (Found found : raw.holders) {
                    holders.add(holder(key, raw.mode, found, instances.get(instanceId(found.ownerToken)), now));
                }
                holders.sort((a, b) -> Long.compare(a.fencingToken(), b.fencingToken()));
                List<LockInstance> waiters = raw.waiters.stream()
                    .map(token -> instances.get(instanceId(token)).instance())
                    .toList();
                states.add(new LockStatus(key, raw.mode, holders, waiters, raw.othersWaiting));
            }
            return states;
        }
        catch (DataAccessException ex) {
            LockPermissionException refused = PermissionRefusals.during("inspecting", key, ex);
            if (refused != null) {
                throw refused;
            }
            throw new LockUnavailableException(key, "Redis could not be reached to inspect lock " + KeyText.quote(key)
                    + ": " + ex.getMessage(), ex);
        }
    }

    private void exclusive(String key, long now, List<Raw> raws) {
        String name = this.keys.lockHash(key);
        PlainLock lock = PlainLock.read(this.redis, name);
        if (lock != null) {
            // an exclusive lock's token comes from the Redis clock only when it starts a run (fence = chain)
            plain(LockMode.EXCLUSIVE, name, lock, lock.fence() == lock.chain(), now, List.of(), raws);
        }
    }

    private void fair(String key, long now, List<Raw> raws) {
        String name = this.keys.name(key, "fair:lock");
        Map<String, String> fields = this.redis.<String, String>opsForHash().entries(name);
        List<String> waiters = queued(key, "fair:queue", "fair:places", now);
        if (!fields.isEmpty() || !waiters.isEmpty()) {
            plain(LockMode.FAIR, name, PlainLock.ofHash(fields), true, now, waiters, raws);
        }
    }

    private void readWrite(String key, long now, List<Raw> raws) {
        String writer = this.keys.name(key, "rw:write");
        Map<String, String> fields = this.redis.<String, String>opsForHash().entries(writer);
        String intent = this.redis.opsForValue().get(this.keys.name(key, "rw:intent"));
        if (!fields.isEmpty() || intent != null) {
            plain(LockMode.WRITE, writer, PlainLock.ofHash(fields), true, now,
                    (intent != null) ? List.of(intent) : List.of(), raws);
        }
        List<Found> readers = holders(key, "rw:readers", "rw:reader:", Map.of(), now);
        if (!readers.isEmpty()) {
            raws.add(new Raw(LockMode.READ, readers, List.of(), intent != null));
        }
    }

    private void semaphore(String key, long now, List<Raw> raws) {
        Map<String, String> permits = this.redis.<String, String>opsForHash().entries(this.keys.name(key, "sem:permits"));
        List<Found> holders = holders(key, "sem:leases", "sem:holder:", permits, now);
        List<String> waiters = queued(key, "sem:queue", "sem:places", now);
        if (!holders.isEmpty() || !waiters.isEmpty()) {
            raws.add(new Raw(LockMode.SEMAPHORE, holders, waiters, permits.containsKey("waiting")));
        }
    }

    /** A plain lock (exclusive, fair, a writer): its holder, or its delayed release's, and its waiters. */
    private void plain(LockMode mode, String name, PlainLock lock, boolean sinceFromFence, long now,
            List<String> waiters, List<Raw> raws) {
        List<Found> holders = new ArrayList<>(1);
        if (lock.owner() != null) {
            Long left = this.redis.execute((RedisCallback<Long>) connection -> connection.keyCommands()
                .pTtl(name.getBytes(StandardCharsets.UTF_8)));
            holders.add(new Found(lock.owner(), lock.fence(), sinceFromFence, lock.holds(), 1,
                    (left != null) ? Math.max(0, left) : 0, null));
        }
        else if (lock.released() != null && lock.delayedUntil() > now) {
            holders.add(new Found(lock.released(), lock.fence(), sinceFromFence, 0, 1, lock.delayedUntil() - now,
                    "released, held until its delay ends"));
        }
        if (!holders.isEmpty() || !waiters.isEmpty()) {
            raws.add(new Raw(mode, holders, waiters, lock.waiting() || !waiters.isEmpty()));
        }
    }

    /** Readers or semaphore holders: the set scored by lease end, each holder's hash for its token and holds. */
    private List<Found> holders(String key, String leases, String holderPrefix, Map<String, String> permits,
            long now) {
        Set<TypedTuple<String>> live = this.redis.opsForZSet()
            .rangeByScoreWithScores(this.keys.name(key, leases), now + 1, Double.POSITIVE_INFINITY, 0, MAX_LISTED);
        List<Found> found = new ArrayList<>();
        if (live == null) {
            return found;
        }
        for (TypedTuple<String> entry : live) {
            String token = entry.getValue();
            List<String> hash = this.redis.<String, String>opsForHash()
                .multiGet(this.keys.name(key, holderPrefix + token), List.of("fence", "holds"));
            String permitsHeld = permits.get(token);
            found.add(new Found(token, number(hash.get(0)), true, (int) number(hash.get(1)),
                    (permitsHeld != null) ? (int) number(permitsHeld) : 1, (long) entry.getScore().doubleValue() - now,
                    null));
        }
        return found;
    }

    /** A fair queue's waiters whose place has not lapsed, in order (see fair-queue.lua). */
    private List<String> queued(String key, String queue, String places, long now) {
        List<String> tokens = List.copyOf(this.redis.opsForZSet().range(this.keys.name(key, queue), 0, MAX_LISTED - 1));
        if (tokens.isEmpty()) {
            return tokens;
        }
        String placesName = this.keys.name(key, places);
        List<String> live = new ArrayList<>();
        for (String token : tokens) { // ZSCORE each: the lock's ACL grants no ZMSCORE
            Double lapse = this.redis.opsForZSet().score(placesName, token);
            if (lapse != null && lapse > now) {
                live.add(token);
            }
        }
        return live;
    }

    private LockHolder holder(String key, LockMode mode, Found found, InstanceRecord.Found instance, long now) {
        String owner = found.note;
        Instant since = found.sinceFromFence ? fenceTime(found.fence, now) : null;
        HeldLock own = ownHold(key, mode, found.ownerToken);
        if (own != null) { // this instance's own hold: its view is exact
            owner = (owner != null) ? owner : own.owner();
            since = (since != null) ? since : own.since();
        }
        else {
            String[] published = instance.hold(found.ownerToken);
            if (published != null) {
                owner = (owner != null) ? owner : published[1];
                since = (since != null) ? since : Instant.ofEpochMilli(number(published[0]));
            }
        }
        return new LockHolder(instance.instance(), owner, since, Duration.ofMillis(found.leaseLeftMillis),
                found.fence, found.holds, found.permits);
    }

    private @Nullable HeldLock ownHold(String key, LockMode mode, String ownerToken) {
        for (Hold hold : this.ownHolds.get()) {
            LockMode held = hold.holdKey().mode();
            if (hold.ownerToken().equals(ownerToken) && hold.key().equals(key)
                    && (held == mode || (held.isSemaphore() && mode.isSemaphore()))) {
                return hold.snapshot();
            }
        }
        return null;
    }

    /** The Redis clock reading a token was taken from (microseconds), if it is one: not in the future, after 2020. */
    private static @Nullable Instant fenceTime(long fence, long nowMillis) {
        long millis = fence / 1000;
        return (millis > 1_577_836_800_000L && millis <= nowMillis) ? Instant.ofEpochMilli(millis) : null;
    }

    /** The instance id an owner token begins with (see LockEngine#newOwnerToken). */
    static String instanceId(String ownerToken) {
        return ownerToken.substring(0, Math.min(16, ownerToken.length()));
    }

    private static long number(@Nullable String text) {
        return (text != null) ? Long.parseLong(text) : 0;
    }
}
