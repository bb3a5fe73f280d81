package dev.distlock;

import java.time.Duration;

/**
 * Redis refused a new grant because its process is younger than the restart grace ({@code
 * RedisLockServiceBuilder.restartGrace}, {@code distlock.safety.restart-grace}): it may have restarted without the data
 * of leases that still run in their holders. Not "held by another owner". A waiting acquisition waits through the grace
 * and throws this only when its wait time ends first; {@code tryAcquire} throws it at once. Nothing was granted.
 */
public class RestartGraceException extends LockUnavailableException {

    private final transient Duration retryAfter;

    public RestartGraceException(String key, Duration retryAfter) {
        super(key, "Redis refused lock '" + key + "': its process is younger than the restart grace, so a lease "
                + "granted before a restart may still run; new grants resume in about " + retryAfter.toMillis()
                + " ms");
        this.retryAfter = retryAfter;
    }

    /** How long until Redis grants again, as Redis estimated it when it refused. */
    public Duration retryAfter() {
        return this.retryAfter;
    }
}
