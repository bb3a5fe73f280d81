package dev.distlock.redis;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The plain lock's data, as Java reads it: the one place Java parses it (the scripts' side is single-hold.lua,
 * to-hash.lua and acquire.lua). An exclusive lock's key has one of two forms: while one owner holds it with one hold
 * the watchdog renews, or while it is free keeping only its last token, a string, {@code "<owner token> <hold id>
 * <fence> <chain>"} then {@code " w"} once a waiting caller was refused, or {@code "<fence> <chain>"}; otherwise a
 * hash: {@code owner}, {@code holds}, a field named by the owner token (its holds the watchdog renews), one field per
 * hold id, {@code fence}, {@code chain}, {@code waiting}, and after a delayed release {@code owner = "(released)"} with
 * {@code until} (Redis ms). A fair lock and a read/write lock's writer are always the hash.
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

    /** The lock the single-hold string {@code value} stands for. */
    static PlainLock ofString(String value) {
        String[] parts = value.split(" ", -1);
        if (parts.length == 2) {
            return new PlainLock(null, 0, false, Long.parseLong(parts[0]), Long.parseLong(parts[1]), false, 0, null);
        }
        if (parts.length != 4 && !(parts.length == 5 && parts[4].equals("w"))) {
            throw new IllegalStateException("Not a lock's single-hold string: " + value);
        }
        return new PlainLock(parts[0], 1, true, Long.parseLong(parts[2]), Long.parseLong(parts[3]), parts.length == 5,
                0, null);
    }

    /** The lock a hash's fields describe. */
    static PlainLock ofHash(Map<String, String> fields) {
        String owner = fields.get("owner");
        boolean delayed = RELEASED.equals(owner);
        return new PlainLock(delayed ? null : owner, (int) number(fields.get("holds")),
                owner != null && number(fields.get(owner)) > 0, number(fields.get("fence")),
                number(fields.get("chain")), fields.containsKey("waiting"),
                delayed ? number(fields.get("until")) : 0, delayed ? fields.get("released") : null);
    }

    /** Reads the lock at {@code name}, whichever form it has; null when there is no key. */
    static @Nullable PlainLock read(StringRedisTemplate redis, String name) {
        String value;
        try {
            value = redis.opsForValue().get(name);
        }
        catch (DataAccessException ex) {
            requireWrongType(ex);
            Map<String, String> fields = redis.<String, String>opsForHash().entries(name);
            return fields.isEmpty() ? null : ofHash(fields);
        }
        return (value != null) ? ofString(value) : null;
    }

    /**
     * The owner token the lock at {@code name} names, or null when free or gone: one GET when {@code stringFirst}
     * (an exclusive lock, most likely the string), then or else one HGET.
     */
    static @Nullable String readOwner(StringRedisTemplate redis, String name, boolean stringFirst) {
        if (stringFirst) {
            try {
                String value = redis.opsForValue().get(name);
                return (value != null) ? ofString(value).owner() : null;
            }
            catch (IllegalArgumentException | IllegalStateException ex) {
                return null; // no lock's string: nobody's lock
            }
            catch (DataAccessException ex) {
                requireWrongType(ex); // the hash
            }
        }
        String owner = redis.<String, String>opsForHash().get(name, "owner");
        return RELEASED.equals(owner) ? null : owner;
    }

    /** Rethrows anything but the WRONGTYPE refusal that tells a command met the other form. */
    private static void requireWrongType(DataAccessException ex) {
        String message = ex.getMostSpecificCause().getMessage();
        if (message == null || !message.startsWith("WRONGTYPE")) {
            throw ex;
        }
    }

    private static long number(@Nullable String text) {
        return (text != null && !text.equals("w")) ? Long.parseLong(text) : 0;
    }
}
