package dev.distlock;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One acquisition of a lock. Release it exactly once, from any thread; further releases do nothing. Use it in a
 * try-with-resources block:
 *
 * <pre>{@code
 * try (LockHandle lock = lockService.acquire("stock:" + sku)) {
 *     store.write(item, lock.fencingToken());
 * }
 * }</pre>
 */
public interface LockHandle extends AutoCloseable {

    /** The lock's key, as the caller gave it. */
    String key();

    /**
     * The lock's low-cardinality name for metrics and traces: the acquisition's {@link LockOptions#withName(String)},
     * or the name derived from the key (see there). The default derives it from {@link #key()}.
     */
    default String name() {
        return LockNames.derive(key());
    }

    /** The owner token stored in Redis: random, unguessable, shared by the reentrant acquisitions of one owner. */
    String ownerToken();

    /**
     * The fencing token of this grant: it strictly increases with every new grant of this key while Redis's clock does
     * not step backwards by more than the token retention. Pass it to the protected resource, which rejects any token
     * lower than the highest it has seen. Reentrant acquisitions share the outer acquisition's token.
     */
    long fencingToken();

    /**
     * When the lease runs out unless it is renewed, estimated on this machine's clock. With the watchdog it moves
     * forward at every renewal.
     */
    Instant leaseDeadline();

    /**
     * Whether this handle still holds the lock as far as this process knows: not released, not reported lost, and the
     * lease deadline not passed. A {@code true} is no proof against a pause that starts right after it; use the
     * fencing token for that.
     */
    boolean isHeld();

    /**
     * Calls {@code callback} once if the lease is lost while the handle is unreleased: the watchdog found the lock
     * deleted or taken by another owner, or Redis unreachable until the lease ran out. Runs at once, on the calling
     * thread, if the lease is already known to be lost; otherwise on the service's lease-notification thread (one per
     * service, shared by every handle's callbacks and the listener's renewal events, in order), so keep it short: a
     * callback that blocks holds up later notifications, never renewal.
     * Releasing the handle drops its callbacks; one added after the release runs at once if the lease was lost
     * before the release, and never otherwise.
     */
    void onLeaseLost(Consumer<LeaseLostException> callback);

    /**
     * Releases this acquisition. The lock is freed when the owner's last acquisition is released; waiters are woken.
     * Safe to call again and from any thread; later calls do nothing. A failed call is retried briefly; a release
     * that cannot reach Redis leaves the lock to expire at the end of its lease and no longer renews it.
     *
     * @throws LeaseLostException when the lease had already run out, so the work may have overlapped another holder
     * @throws NotLockOwnerException when another owner holds the lock by now (a subtype of the above)
     * @throws LockUnavailableException when Redis could not be reached
     */
    void release();

    /**
     * Ends this acquisition now but, if it is the owner's last, leaves the lock held for {@code delay} more, with no
     * renewal and no release message: nobody, this owner included, acquires it before then. Used to hold a lock for a
     * minimum time, so that a repeated submission or the same scheduled job on another node is turned away. A zero
     * delay is {@link #release()}; a part of a millisecond counts as a whole one (Redis keeps whole milliseconds, and
     * the delay is never cut short). The exceptions are those of {@link #release()}.
     *
     * @throws IllegalArgumentException when {@code delay} is null, negative or longer than
     * {@link LockOptions#MAX_LEASE_TIME}
     */
    void releaseAfter(Duration delay);

    /**
     * Releases this acquisition as {@link #release()} does, without blocking the calling thread where the service
     * can: the future completes once Redis answered, exceptionally with the exceptions {@link #release()} lists. A
     * handle whose service has no non-blocking release releases on the calling thread and returns a completed future.
     */
    default CompletableFuture<Void> releaseAsync() {
        try {
            release();
            return CompletableFuture.completedFuture(null);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
