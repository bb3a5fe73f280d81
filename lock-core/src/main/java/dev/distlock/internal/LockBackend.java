package dev.distlock.internal;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;

/**
 * What a service puts below the shared skeleton ({@link AbstractLockService}, and its non-blocking side): the rules a
 * key and the options must meet, and the attempt that takes the lock. The skeleton calls it, and it calls nothing
 * back, so that a call's path runs one way: service, skeleton, backend, the backend's acquisition.
 */
public interface LockBackend {

    /**
     * Checks a caller's key.
     *
     * @return the key
     * @throws IllegalArgumentException naming the argument and the rule it broke
     */
    String checkKey(@Nullable String key);

    /**
     * Checks the caller's options, and that the service can still take locks.
     *
     * @throws IllegalArgumentException for options the service does not take
     * @throws IllegalStateException when the service is closed
     */
    void checkOptions(@Nullable LockOptions options);

    /**
     * Tries until the lock is granted or {@code waitNanos} (measured from {@code startNanos}) have passed; a zero wait
     * is a single attempt.
     *
     * @param name the lock's name for listeners and metrics
     * @return the handle, or null when the lock stayed held by another owner
     * @throws LockException when Redis failed or the waiting thread was interrupted
     */
    @Nullable LockHandle acquireWithin(String key, LockOptions options, String name, long startNanos, long waitNanos);

    /**
     * As {@link #acquireWithin}, without blocking: the future completes with the handle, with null when the lock
     * stayed held, or exceptionally with a {@link LockException}. Cancelling it withdraws the attempt.
     */
    CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options, String name,
            long startNanos, long waitNanos);
}
