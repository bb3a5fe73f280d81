package dev.distlock;

import java.time.Duration;

/**
 * Receives what happens to locks, for metrics, tracing and logging. Every method has an empty default. Methods run on
 * the thread that caused the event (the watchdog's thread for renewals and losses), so they must be quick and must
 * not block; an exception thrown by a listener is logged and otherwise ignored.
 *
 * <p>For metrics, label events with the lock's {@linkplain LockHandle#name() name}, never its key: see
 * {@link LockOptions#withName(String)}.
 */
public interface LockListener {

    /** A lock was acquired (or re-entered) after waiting {@code waited}. */
    default void acquired(LockHandle lock, Duration waited) {
    }

    /**
     * The lock stayed held by another owner for the whole wait ({@code waited} is zero for a {@code tryAcquire} that
     * found it held).
     *
     * @param name the lock's name (see {@link LockOptions#nameFor(String)})
     */
    default void notAcquired(String key, String name, Duration waited) {
    }

    /**
     * An acquisition failed for another reason: {@link LockUnavailableException} when Redis failed,
     * {@link LockInterruptedException} when the waiting thread was interrupted.
     *
     * @param name the lock's name (see {@link LockOptions#nameFor(String)})
     */
    default void acquireFailed(String key, String name, Duration waited, LockException reason) {
    }

    /** An acquisition was released after being held for {@code held}. */
    default void released(LockHandle lock, Duration held) {
    }

    /** A release failed: the lease was already lost, or Redis could not be reached. */
    default void releaseFailed(LockHandle lock, LockException reason) {
    }

    /** The watchdog extended {@code count} leases in one batch. */
    default void renewed(int count) {
    }

    /** A renewal could not reach Redis; the lease stays valid until its deadline and renewal is retried. */
    default void renewalFailed(LockHandle lock, Exception reason) {
    }

    /** A held lease was lost; the holder's {@link LockHandle#onLeaseLost} callbacks have been called. */
    default void leaseLost(LockHandle lock, LeaseLostException reason) {
    }
}
