package dev.distlock.redis.wakeup;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The back-off of a failing release subscription: retries wait from {@value #RETRY_MIN_SECONDS} s, doubling up to
 * {@value #RETRY_MAX_SECONDS} s, and only the first failure of a streak is logged as a warning. Changed under the
 * subscriptions' lock; read from any thread.
 */
final class SubscribeBackoff {

    private static final Log logger = LogFactory.getLog(SubscribeBackoff.class);

    static final long RETRY_MIN_SECONDS = 1;

    static final long RETRY_MAX_SECONDS = 30;

    /** No subscribe is tried before this {@link System#nanoTime()}. */
    private volatile long retryAtNanos = System.nanoTime();

    private long retryDelayNanos; // 0 while subscribing works

    /** Whether a subscribe is not worth trying yet. */
    boolean waiting() {
        return System.nanoTime() - this.retryAtNanos < 0;
    }

    void worked() {
        if (this.retryDelayNanos > 0) {
            logger.info("The release subscription works again; waiters are woken by releases instead of polling");
            this.retryDelayNanos = 0;
        }
    }

    void failed(String channel, RuntimeException failure) {
        long max = TimeUnit.SECONDS.toNanos(RETRY_MAX_SECONDS);
        if (this.retryDelayNanos == 0) {
            logger.warn("Could not subscribe to release channel " + channel + ", so waiters poll Redis instead (with "
                    + "capped exponential backoff), and the subscription is tried again from " + RETRY_MIN_SECONDS
                    + " s up to every " + RETRY_MAX_SECONDS + " s. Behind a sharding proxy without pub/sub, such as "
                    + "Twemproxy, set shardingProxy (distlock.sharding-proxy=true). Cause: " + failure);
            this.retryDelayNanos = TimeUnit.SECONDS.toNanos(RETRY_MIN_SECONDS);
        }
        else {
            logger.debug("Could not subscribe to release channel " + channel + "; waiters keep polling", failure);
            this.retryDelayNanos = Math.min(this.retryDelayNanos * 2, max);
        }
        this.retryAtNanos = System.nanoTime() + this.retryDelayNanos;
    }
}
