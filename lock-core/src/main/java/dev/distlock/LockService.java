package dev.distlock;

import java.util.Collection;
import java.util.Optional;

/**
 * Takes distributed locks. The entry point for programmatic use; implementations are thread-safe.
 *
 * <p>A lock is named by a key such as {@code "stock:42"}: non-blank, at most {@value #MAX_KEY_LENGTH} characters (or
 * the service's lower {@code maxKeyLength}),
 * with no control characters and no braces (braces are reserved for the Redis Cluster hash tag). A bad key or
 * option fails at the call with an {@link IllegalArgumentException} naming the argument, and nothing is written to
 * Redis.
 *
 * <p>{@link LockOptions#withMode(LockMode)} chooses the type of lock: exclusive (the default), the read or write side
 * of a read/write lock, or a fair (first come, first served) lock; every method works the same for each.
 * {@link LockOptions#withPermits(int, int)} takes permits of a semaphore instead: up to a limit of holders at once,
 * each acquisition with its own lease, fencing token and loss report, never reentrant.
 * {@link #acquireAll} takes several keys at once.
 *
 * <p>Locks are reentrant per owner. The owner is the calling thread unless {@link LockOptions#withOwner(Object)}
 * names another; a second acquisition by the same owner succeeds at once, and each acquisition's handle is released
 * on its own. A handle may be released from any thread. Each acquisition keeps its own lease: the lock is renewed
 * while any open acquisition uses the watchdog, and otherwise expires at the latest fixed lease among the open ones,
 * so releasing an inner acquisition gives back the lease it added. A re-entry only ever re-enters: if the owner's
 * lease was lost meanwhile (it ran out, or the lock vanished from Redis), the open handles are told (see
 * {@link LockHandle#onLeaseLost}) and the call takes the lock anew, with a new fencing token.
 *
 * <p>Errors: {@link LockTimeoutException} when the lock stays held past the wait limit,
 * {@link LockUnavailableException} when Redis cannot be reached or times out (never confused with "held"),
 * {@link LockInterruptedException} when the waiting thread is interrupted.
 */
public interface LockService {

    /** The longest key a lock accepts, in characters. */
    int MAX_KEY_LENGTH = 1024;

    /** The most distinct keys one {@link #acquireAll} call takes. */
    int MAX_KEYS = 100;

    /**
     * Acquires the lock, waiting up to the default wait limit. Equivalent to
     * {@code acquire(key, LockOptions.defaults())}.
     */
    default LockHandle acquire(String key) {
        return acquire(key, LockOptions.defaults());
    }

    /**
     * Acquires the lock, waiting while another owner holds it, up to the options' wait time (zero means one attempt).
     * Waiting threads are woken by the holder's release rather than by polling.
     *
     * @return the handle of this acquisition; release it (or close it) when done
     * @throws LockTimeoutException when the lock is still held by another owner at the end of the wait
     * @throws LockUnavailableException when Redis cannot be reached or does not answer in time
     * @throws LockInterruptedException when the thread is interrupted while waiting (its interrupt flag stays set)
     */
    LockHandle acquire(String key, LockOptions options);

    /**
     * Makes one attempt to acquire the lock, without waiting. Equivalent to
     * {@code tryAcquire(key, LockOptions.defaults())}.
     */
    default Optional<LockHandle> tryAcquire(String key) {
        return tryAcquire(key, LockOptions.defaults());
    }

    /**
     * Makes one attempt to acquire the lock, ignoring the options' wait time.
     *
     * @return the handle, or empty when another owner holds the lock
     * @throws LockUnavailableException when Redis cannot be reached or does not answer in time
     */
    Optional<LockHandle> tryAcquire(String key, LockOptions options);

    /**
     * The non-blocking side of this service: the same locks, taken and released without a thread waiting.
     *
     * @throws UnsupportedOperationException when this service has none
     */
    default AsyncLockService async() {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " offers no non-blocking calls");
    }

    /**
     * Runs {@code work} while holding the lock and releases it on every path, as {@link #acquire(String, LockOptions)}
     * followed by {@link LockHandle#release()} in a {@code finally} block.
     *
     * <p>If the work succeeds but the lease was lost before the release, the release's {@link LeaseLostException} is
     * thrown and the work's result is discarded: the caller learns that the work may have overlapped another holder.
     * If the work throws, that exception propagates, with any release failure added as suppressed.
     *
     * @param <T> the work's result
     * @param <E> the checked exception the work may throw ({@link RuntimeException} when it throws none)
     * @return what the work returned
     * @throws E what the work threw
     */
    default <T, E extends Exception> T executeLocked(String key, LockOptions options, LockedWork<T, E> work) throws E {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        return runHolding(acquire(key, options), work);
    }

    /**
     * Acquires the locks of several keys as one: all of them or none. The keys are de-duplicated and taken one by one
     * in their natural ({@link String#compareTo}) order, so that callers naming the same keys in any order never
     * deadlock each other. Each key is locked as {@link #acquire(String, LockOptions)} would (mode, lease and owner
     * from the options); the options' wait time covers the whole set. When a key stays held past the wait, Redis
     * fails or the thread is interrupted, the keys taken so far are released before the exception is thrown.
     *
     * @param keys 1 to {@value #MAX_KEYS} distinct keys, each valid as for {@link #acquire(String, LockOptions)}
     * @return one handle for the whole set; releasing it releases every key
     * @throws LockTimeoutException naming the first key still held by another owner at the end of the wait
     * @throws LockUnavailableException when Redis cannot be reached or does not answer in time
     * @throws LockInterruptedException when the thread is interrupted while waiting (its interrupt flag stays set)
     * @throws IllegalArgumentException when {@code keys} is null, empty, too large or holds a bad key; nothing is
     * written to Redis then
     */
    MultiLockHandle acquireAll(Collection<String> keys, LockOptions options);

    /**
     * Makes one attempt at each key of the set, in the order of {@link #acquireAll}, ignoring the options' wait time.
     *
     * @return the handle of the whole set, or empty (with nothing left held) when another owner holds one of the keys
     * @throws LockUnavailableException when Redis cannot be reached or does not answer in time
     */
    Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options);

    /**
     * Runs {@code work} while holding every key of the set, as {@link #acquireAll} followed by a release of the whole
     * set in a {@code finally} block, with the failure rules of {@link #executeLocked}. The work receives the
     * {@link MultiLockHandle}.
     */
    default <T, E extends Exception> T executeLockedAll(Collection<String> keys, LockOptions options,
            LockedWork<T, E> work) throws E {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        return runHolding(acquireAll(keys, options), work);
    }

    /** Runs the work and releases the lock on every path; a release failure after a failed work is suppressed. */
    private static <T, E extends Exception> T runHolding(LockHandle lock, LockedWork<T, E> work) throws E {
        T result;
        try {
            result = work.run(lock);
        }
        catch (Throwable ex) {
            try {
                lock.release();
            }
            catch (RuntimeException releaseFailure) {
                ex.addSuppressed(releaseFailure);
            }
            throw ex;
        }
        lock.release();
        return result;
    }

    /** Work run under a lock by {@link #executeLocked}. */
    @FunctionalInterface
    interface LockedWork<T, E extends Exception> {

        /**
         * Does the work.
         *
         * @param lock the held lock, for its fencing token or {@link LockHandle#isHeld()}
         */
        T run(LockHandle lock) throws E;
    }
}
