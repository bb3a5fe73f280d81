package dev.distlock;

import java.time.Duration;

/**
 * The former listener interface, one method per event, kept so that existing listeners still compile and run: it is
 * a {@link LockEventListener} whose {@link #onEvent} calls the matching method. It has no method for
 * {@link LockEvent.Acquiring} and {@link LockEvent.HandedOff}, which it ignores.
 *
 * @deprecated implement {@link LockEventListener} and handle {@link LockEvent}s instead; this adapter will be
 * removed.
 */
@Deprecated(forRemoval = true)
public interface LockListener extends LockEventListener {

    /** Calls the method for {@code event}'s kind. */
    @Override
    default void onEvent(LockEvent event) {
        if (event instanceof LockEvent.Acquired acquired) {
            acquired(acquired.lock(), acquired.waited());
        }
        else if (event instanceof LockEvent.NotAcquired refused) {
            notAcquired(refused.key(), refused.name(), refused.waited());
        }
        else if (event instanceof LockEvent.AcquireFailed failed) {
            acquireFailed(failed.key(), failed.name(), failed.waited(), failed.reason());
        }
        else if (event instanceof LockEvent.Released released) {
            released(released.lock(), released.held());
        }
        else if (event instanceof LockEvent.ReleaseFailed failed) {
            releaseFailed(failed.lock(), failed.reason());
        }
        else if (event instanceof LockEvent.Renewed renewed) {
            renewed(renewed.count());
        }
        else if (event instanceof LockEvent.RenewalFailed failed) {
            renewalFailed(failed.lock(), failed.reason());
        }
        else if (event instanceof LockEvent.LeaseLost lost) {
            leaseLost(lost.lock(), lost.reason());
        }
    }

    /** A lock was acquired (or re-entered) after waiting {@code waited}. */
    default void acquired(LockHandle lock, Duration waited) {
    }

    /** The lock stayed held by another owner for the whole wait (zero for a {@code tryAcquire} that found it held). */
    default void notAcquired(String key, String name, Duration waited) {
    }

    /** An acquisition failed for another reason (see {@link LockEvent.AcquireFailed}). */
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

    /** A held lease was lost; the holder's {@link LockHandle#onLeaseLost} callbacks are called after this. */
    default void leaseLost(LockHandle lock, LeaseLostException reason) {
    }
}
