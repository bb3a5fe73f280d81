package dev.distlock;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Takes distributed locks without blocking a thread: the non-blocking side of a {@link LockService}, from
 * {@link LockService#async()}, with the same keys, lock types, leases, watchdog, fencing tokens and errors.
 * Thread-safe.
 *
 * <pre>{@code
 * lockService.async().acquire("stock:" + sku, LockOptions.defaults())
 *     .thenCompose(lock -> store.writeAsync(item, lock.fencingToken())
 *         .whenComplete((written, failure) -> lock.releaseAsync()));
 * }</pre>
 * or, releasing on every path, {@link #executeLocked}.
 *
 * <p>What differs from the blocking calls:
 * <ul>
 * <li>No thread waits: an attempt is one script sent on the shared connection, and a waiting acquisition is completed
 * by the holder's release message, or tried again when the holder's lease would end (or, without a subscription, by
 * polling with backoff).</li>
 * <li>The returned futures complete on a Redis client or distlock thread. Do not block in stages that depend on them
 * directly; use the {@code ...Async(..., executor)} stages for blocking work.</li>
 * <li>An acquisition belongs to no thread. Without {@link LockOptions#withOwner(Object)} every acquisition is its
 * own owner, so a second acquisition of a held key waits like anybody else's; with an owner, acquisitions naming equal
 * owners re-enter one hold, as on the blocking side.</li>
 * <li>Cancelling the future of a pending acquisition (or completing it yourself) withdraws it: it stops waiting, gives
 * up any place it kept in Redis, and a grant that lands after the cancel is released at once.</li>
 * <li>A bad key or option throws {@link IllegalArgumentException} at the call, before anything is sent; every later
 * failure completes the future exceptionally with the exception the blocking call would throw
 * ({@link LockTimeoutException}, {@link LockUnavailableException}, ...).</li>
 * </ul>
 */
public interface AsyncLockService {

    /**
     * Acquires the lock, waiting up to the options' wait time (zero means one attempt), without blocking.
     *
     * @return completes with the handle, or exceptionally with {@link LockTimeoutException} when the lock is still
     * held at the end of the wait, {@link LockUnavailableException} when Redis cannot be reached
     */
    CompletableFuture<LockHandle> acquire(String key, LockOptions options);

    /**
     * Makes one attempt to acquire the lock, ignoring the options' wait time.
     *
     * @return completes with the handle, or empty when another owner holds the lock
     */
    CompletableFuture<Optional<LockHandle>> tryAcquire(String key, LockOptions options);

    /**
     * Acquires several keys as one, all or none, in the order and under the rules of
     * {@link LockService#acquireAll}; keys taken before a failure are released.
     *
     * @return completes with one handle for the whole set
     */
    CompletableFuture<MultiLockHandle> acquireAll(Collection<String> keys, LockOptions options);

    /**
     * Acquires the lock, runs {@code work} once it is held, and releases the lock when the work's stage completes,
     * fails, or cannot be started. As with {@link LockService#executeLocked}, a work that succeeded after its lease was
     * lost completes exceptionally with the release's {@link LeaseLostException}; a failed work keeps its own
     * exception, with any release failure added as suppressed. Cancelling the returned future while the lock is being
     * acquired withdraws the acquisition; cancelling it once the work runs does not stop the work, and the lock is
     * released when the work's stage completes.
     *
     * @param <T> the work's result
     * @return completes with the work's result once the lock is released
     */
    default <T> CompletableFuture<T> executeLocked(String key, LockOptions options,
            Function<? super LockHandle, ? extends CompletionStage<T>> work) {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        return AsyncWork.executeLocked(acquire(key, options), work);
    }

    /**
     * {@link #executeLocked} over a key set taken by {@link #acquireAll}: the work receives the
     * {@link MultiLockHandle}, and every key is released when its stage completes.
     */
    default <T> CompletableFuture<T> executeLockedAll(Collection<String> keys, LockOptions options,
            Function<? super LockHandle, ? extends CompletionStage<T>> work) {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
        return AsyncWork.executeLocked(acquireAll(keys, options), work);
    }
}
