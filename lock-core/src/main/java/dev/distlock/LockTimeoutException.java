package dev.distlock;

import java.time.Duration;

/** The lock was still held by another owner when the wait limit ran out. Nothing was acquired. */
public class LockTimeoutException extends LockException {

    private final Duration waited;

    public LockTimeoutException(String key, Duration waited) {
        super(key, "Lock " + KeyText.quote(key) + " is held by another owner; not acquired within " + waited, null);
        this.waited = waited;
    }

    /** How long the caller waited. */
    public Duration waited() {
        return this.waited;
    }
}
