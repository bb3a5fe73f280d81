package dev.distlock.internal;

import java.time.Duration;
import java.util.concurrent.CancellationException;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;

/**
 * Tells a service's listener that an acquisition began and what came of it (acquired, not acquired, failed), for the
 * blocking and the non-blocking skeleton alike. Builds no event when nobody listens.
 */
final class AcquisitionReports {

    private final LockEventListener listener;

    AcquisitionReports(LockEventListener listener) {
        this.listener = listener;
    }

    LockEventListener listener() {
        return this.listener;
    }

    /** Reports that an acquisition begins; returns its attempt number (0 when nobody listens). */
    long started(String key, String name, LockOptions options) {
        if (!Listeners.listening(this.listener)) {
            return 0;
        }
        long attempt = Listeners.nextAttempt();
        Listeners.emit(this.listener, new LockEvent.Acquiring(attempt, key, name, options.mode(),
                options.mode().isSemaphore() ? options.permits() : 0));
        return attempt;
    }

    /** Reports that the acquisition numbered {@code attempt} threw {@code failure} (see {@link #lockFailure}). */
    void failed(long attempt, String key, String name, long start, Throwable failure) {
        if (Listeners.listening(this.listener)) {
            Listeners.emit(this.listener,
                    new LockEvent.AcquireFailed(attempt, key, name, Durations.since(start), lockFailure(key, failure)));
        }
    }

    /** Reports the outcome of the acquisition numbered {@code attempt}: the handle, or null when the lock stayed held. */
    void ended(long attempt, String key, String name, long start, @Nullable LockHandle handle) {
        if (!Listeners.listening(this.listener)) {
            return;
        }
        Duration waited = Durations.since(start);
        Listeners.emit(this.listener, (handle == null) ? new LockEvent.NotAcquired(attempt, key, name, waited)
                : new LockEvent.Acquired(attempt, handle, waited));
    }

    /**
     * The failure to report for an acquisition that threw {@code failure}: itself for a {@link LockException}, a
     * cancel (a non-blocking caller withdrew the attempt) as an interrupt, anything else as a failure to acquire.
     */
    static LockException lockFailure(String key, Throwable failure) {
        if (failure instanceof LockException lockFailure) {
            return lockFailure;
        }
        if (failure instanceof CancellationException) {
            return new LockInterruptedException(key, new InterruptedException("the caller withdrew the attempt"));
        }
        return new LockUnavailableException(key, "Could not acquire lock " + KeyText.quote(key) + ": " + failure,
                failure);
    }
}
