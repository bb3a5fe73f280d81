package dev.distlock.redis;

/**
 * How a thread waiting for a lock held by another process learns that it was released. Either way, a release made in
 * the same service wakes its local waiters at once, and a waiter also checks again when the holder's lease would
 * run out.
 */
public enum WaitStrategy {

    /**
     * Waiters sleep on a release channel and wake on the release: one shared pub/sub connection per service, classic
     * {@code SUBSCRIBE}, or sharded {@code SSUBSCRIBE} on a Redis Cluster of Redis 7 or later. While subscribing
     * fails, waiters poll as with {@link #POLLING}, and the subscription is retried after a back-off of up to 30 s.
     * The default.
     */
    PUBSUB,

    /**
     * Waiters poll Redis with capped exponential backoff and jitter: the first retry after about 10 ms, each pause
     * then twice as long, up to 1 s (each a random value between half and all of the step), so a release in another
     * process is noticed within about a second. Needs no pub/sub: for proxies that do not pass it, such as
     * Twemproxy, or users without channel permissions.
     */
    POLLING
}
