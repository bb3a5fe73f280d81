package dev.distlock.redis;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The plain lock's hash, as Java reads it: the one place Java parses it (the scripts' side is acquire.lua and the
 * includes it names; docs/data-layout.md, "The hash"). Fields: {@code owner}, {@code holds}, a field named by the
 * owner token (its holds the watchdog renews), one field per hold id, {@code fence}, {@code chain}, {@code waiting},
 * and after a delayed release {@code owner = "(released)"} with {@code released} and {@code until} (Redis ms). The
 * exclusive lock, the fair lock and a read/write lock's writer share it.
 *
 * @param owner the owner token of the holder; null when free or released with a delay
 * @param holds the holder's open holds (0 when free)
 * @param watched whether the watchdog renews one of them
 * @param fence the last fencing token (0 when none is kept)
 * @param chain the first token of the run of grants that {@code fence} belongs to (0 when none)
 * @param waiting whether a waiting caller was refused since the grant
 * @param delayedUntil when a delayed release ends, in Redis ms; 0 for none
 * @param released the owner token of a delayed release; null for none
 */
record PlainLock(@Nullable String owner, int holds, boolean watched, long fence, long chain, boolean waiting,
        long delayedUntil, @Nullable String released) {

    /** A hash's {@code owner} while a delayed release holds the lock for nobody (see delayed-release.lua). */
    static final String RELEASED = "(released)";

    /** The lock a hash's fields describe. */
    static PlainLock ofHash(Map<String, String> fields) {
        String owner = fields.get("owner");
        boolean delayed = RELEASED.equals(owner);
        return new PlainLock(delayed ? null : owner, (int) number(fields.get("holds")),
                owner != null && number(fields.get(owner)) > 0, number(fields.get("fence")),
                number(fields.get("chain")), fields.containsKey("waiting"),
                delayed ? number(fields.get("until")) : 0, delayed ? fields.get("released") : null);
    }

    /** Reads the lock hash at {@code name} with one HGETALL; null when there is no key. */
    static @Nullable PlainLock read(StringRedisTemplate redis, String name) {
        Map<String, String> fields = redis.<String, String>opsForHash().entries(name);
        return fields.isEmpty() ? null : ofHash(fields);
    }

    /** The owner token the lock hash at {@code name} names (one HGET), or null when free, released or gone. */
    static @Nullable String readOwner(StringRedisTemplate redis, String name) {
        String owner = redis.<String, String>opsForHash().get(name, "owner");
        return RELEASED.equals(owner) ? null : owner;
    }

    private static long number(@Nullable String text) {
        return (text != null && !text.equals("w")) ? Long.parseLong(text) : 0;
    }
}
