package dev.distlock.redis;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How long a waiting call sleeps between attempts: until the holder's lease would end (at most
 * {@value #RECHECK_MAX_SECONDS} s, which bounds the cost of a release message lost anyway), before its place in Redis
 * lapses, through a local hold-back, and, without a subscription, with capped exponential backoff and jitter.
 */
final class WaitPause {

    private static final long POLL_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final long POLL_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);

    static final long RECHECK_MAX_SECONDS = 5;

    private static final long RECHECK_MAX_NANOS = TimeUnit.SECONDS.toNanos(RECHECK_MAX_SECONDS);

    private long pollNanos = POLL_MIN_NANOS;

    /**
     * The next pause.
     *
     * @param holderRemainingMillis the holder's remaining lease from the last refusal, or -1 when unknown
     * @param holdBackNanos how long local waiters hold back for another service, or 0
     * @param placeRefreshNanos how often a place kept in Redis must be refreshed, or 0 when none is kept
     * @param subscribed whether a release message will wake the waiter
     */
    long next(long holderRemainingMillis, long holdBackNanos, long placeRefreshNanos, boolean subscribed) {
        long pause = (holderRemainingMillis >= 0)
                ? Math.min(TimeUnit.MILLISECONDS.toNanos(holderRemainingMillis + 1), RECHECK_MAX_NANOS)
                : POLL_MAX_NANOS;
        if (holdBackNanos > 0) {
            pause = Math.min(holdBackNanos, RECHECK_MAX_NANOS);
        }
        if (placeRefreshNanos > 0) {
            pause = Math.min(pause, placeRefreshNanos); // try again before the place lapses
        }
        if (!subscribed) {
            pause = Math.min(pause, this.pollNanos / 2 + ThreadLocalRandom.current().nextLong(this.pollNanos / 2 + 1));
            this.pollNanos = Math.min(this.pollNanos * 2, POLL_MAX_NANOS);
        }
        return pause;
    }
}
