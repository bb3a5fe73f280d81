package dev.distlock.redis;

/**
 * What a {@link RedisLockService} does when Redis's {@code maxmemory-policy} may evict keys that have a TTL, and with
 * them held locks (every lock key has one): any {@code volatile-*} or {@code allkeys-*} policy. Only
 * {@code noeviction} keeps held locks when Redis runs out of memory (writes then fail instead, which the lock
 * reports). Checked when the service is built and whenever its connection to Redis comes back.
 */
public enum EvictionPolicyCheck {

    /** Log a warning that names the setting to use. */
    WARN,

    /**
     * Refuse to build the service ({@link IllegalStateException}); after a reconnect, which cannot refuse anything, log
     * an error.
     */
    FAIL,

    /** Do not check (a Redis that refuses INFO, or a policy known to be safe for other reasons). */
    OFF
}
