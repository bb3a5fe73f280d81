package dev.distlock;

/**
 * Receives every {@link LockEvent} of a lock service, for metrics, tracing and logging: one method, so that a
 * listener that passes events on (to several listeners, to a queue) passes every kind, including kinds added later.
 *
 * <p>{@link #onEvent} runs on the thread that caused the event: the caller's for acquisitions and releases, a Redis
 * client thread for non-blocking calls, and for renewals, renewal failures and leases the watchdog found lost the
 * service's lease-notification thread (never the watchdog's own: a listener cannot delay renewal; renewals not yet
 * reported while that thread was held up are reported together, as one {@link LockEvent.Renewed}). It must be quick
 * and must not block. An exception it throws is logged and otherwise ignored: it never fails a lock operation and
 * never stops renewal.
 */
@FunctionalInterface
public interface LockEventListener {

    /** Called once for each event. */
    void onEvent(LockEvent event);
}
