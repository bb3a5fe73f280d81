package dev.distlock;

/**
 * Receives every {@link LockEvent} of a lock service, for metrics, tracing and logging: one method, so that a
 * listener that passes events on (to several listeners, to a queue) passes every kind, including kinds added later.
 *
 * <p>{@link #onEvent} runs on the thread that caused the event: the caller's for acquisitions and releases, a Redis
 * client thread for non-blocking calls, the watchdog's thread for renewals and lost leases. It must be quick and must
 * not block. An exception it throws is logged and otherwise ignored: it never fails a lock operation and never stops
 * renewal.
 */
@FunctionalInterface
public interface LockEventListener {

    /** Called once for each event. */
    void onEvent(LockEvent event);
}
