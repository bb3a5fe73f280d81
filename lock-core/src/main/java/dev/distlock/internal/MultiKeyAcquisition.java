package dev.distlock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;

/**
 * Takes the locks of a key set all or nothing: one key at a time in sorted order (so that no two callers wait for each
 * other in a cycle), under one wait limit, releasing what it took when a key cannot be had.
 */
final class MultiKeyAcquisition {

    private MultiKeyAcquisition() {
    }

    /** Checks the caller's keys by the backend's key rules and returns the distinct ones in acquisition order. */
    static List<String> canonicalKeys(@Nullable Collection<String> keys, LockBackend backend) {
        if (keys == null) {
            throw new IllegalArgumentException("keys must not be null");
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("keys must not be empty");
        }
        TreeSet<String> sorted = new TreeSet<>();
        int index = 0;
        for (String key : keys) {
            try {
                sorted.add(backend.checkKey(key));
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("keys[" + index + "] is bad: " + ex.getMessage(), ex);
            }
            index++;
        }
        if (sorted.size() > LockService.MAX_KEYS) {
            throw new IllegalArgumentException("keys must hold at most " + LockService.MAX_KEYS
                    + " distinct keys, but held " + sorted.size());
        }
        return new ArrayList<>(sorted);
    }

    /**
     * Acquires every key, waiting at most {@code wait} in all.
     *
     * @throws LockTimeoutException when a key stayed held past the wait, with nothing left held
     */
    static LockSet acquire(LockService locks, List<String> keys, LockOptions options, Duration wait) {
        long start = System.nanoTime();
        long waitNanos = Durations.saturatedNanos(wait);
        List<LockHandle> held = new ArrayList<>(keys.size());
        try {
            for (String key : keys) {
                long remaining = waitNanos - (System.nanoTime() - start);
                Optional<LockHandle> member = (remaining <= 0) ? locks.tryAcquire(key, options)
                        : Optional.of(locks.acquire(key, options.withWaitTime(Duration.ofNanos(remaining))));
                if (member.isEmpty()) {
                    throw new LockTimeoutException(key, Durations.since(start));
                }
                held.add(member.get());
            }
        }
        catch (LockTimeoutException ex) {
            rollBack(held, ex);
            throw new LockTimeoutException(ex.key(), Durations.since(start));
        }
        catch (RuntimeException | Error ex) {
            rollBack(held, ex);
            throw ex;
        }
        return new LockSet(held, options.name());
    }

    /** Acquires every key with one attempt each; null, with nothing left held, when a key is held. */
    static @Nullable LockSet tryAcquire(LockService locks, List<String> keys, LockOptions options) {
        List<LockHandle> held = new ArrayList<>(keys.size());
        try {
            for (String key : keys) {
                Optional<LockHandle> member = locks.tryAcquire(key, options);
                if (member.isEmpty()) {
                    rollBack(held, null);
                    return null;
                }
                held.add(member.get());
            }
        }
        catch (RuntimeException | Error ex) {
            rollBack(held, ex);
            throw ex;
        }
        return new LockSet(held, options.name());
    }

    /**
     * Releases the keys taken so far. A failure (the lock then expires with its lease) is added to {@code cause}, or
     * thrown when there is none.
     */
    private static void rollBack(List<LockHandle> held, @Nullable Throwable cause) {
        List<LockHandle> taken = new ArrayList<>(held);
        held.clear();
        Uninterrupted.run(() -> {
            try {
                LockSet.releaseAll(taken, LockHandle::release);
            }
            catch (RuntimeException ex) {
                if (cause == null) {
                    throw ex;
                }
                cause.addSuppressed(ex);
            }
        });
    }
}
