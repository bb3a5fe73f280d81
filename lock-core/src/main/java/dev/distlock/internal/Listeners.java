package dev.distlock.internal;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;

/**
 * Delivers {@link LockEvent}s so that a listener's failure never breaks a lock operation nor stops renewal: what it
 * throws is logged and dropped.
 */
public final class Listeners {

    /** The listener of a service that was given none: call sites skip building events for it. */
    public static final LockEventListener NONE = event -> {
    };

    private static final Log logger = LogFactory.getLog(Listeners.class);

    private static final AtomicLong attempts = new AtomicLong();

    private Listeners() {
    }

    /** Passes {@code event} to {@code listener}, logging what it throws. */
    public static void emit(LockEventListener listener, LockEvent event) {
        try {
            listener.onEvent(event);
        }
        catch (RuntimeException ex) {
            logger.warn("A LockEventListener failed on " + event.getClass().getSimpleName(), ex);
        }
    }

    /** Whether {@code listener} wants events at all. */
    public static boolean listening(LockEventListener listener) {
        return listener != NONE;
    }

    /** A new acquisition's number (see {@link LockEvent.Acquiring#attempt()}). */
    static long nextAttempt() {
        return attempts.incrementAndGet();
    }
}
