package dev.distlock.memory;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import dev.distlock.LockMode;
import dev.distlock.memory.LockState.Id;

/**
 * The tokens of a store, as the Redis service makes them: fencing tokens per lock and random owner tokens. Guarded by
 * the store's monitor.
 */
final class MemoryTokens {

    private static final SecureRandom random = new SecureRandom();

    /** The last fencing token per lock (a semaphore's included), kept as Redis keeps it for the token retention. */
    private final Map<Id, Long> lastTokens = new HashMap<>();

    /**
     * The next fencing token of a lock, as Redis gives it: its first from the clock in microseconds (Redis's
     * {@code TIME}), so that tokens keep increasing across stores, as across a Redis that lost its data; then one more
     * per grant of a lock. A semaphore's is never below the clock either (sem-acquire.lua).
     */
    long next(Id id) {
        long clock = clockMicros();
        Long last = this.lastTokens.get(id);
        long token = (last == null) ? clock
                : (id.type() == LockMode.SEMAPHORE) ? Math.max(last + 1, clock) : last + 1;
        this.lastTokens.put(id, token);
        return token;
    }

    /** A new owner token: random and unguessable, 128 bits in hex as the Redis service makes them. */
    static String newOwnerToken() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static long clockMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }
}
