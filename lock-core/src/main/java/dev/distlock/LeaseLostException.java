package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * The holder's lease was lost: it expired, the lock was deleted, or Redis could not be reached until the lease ran out.
 * Another owner may have held the lock since, so work done under it may have overlapped; fencing tokens let the
 * protected resource reject such late writes.
 */
public class LeaseLostException extends LockException {

    public LeaseLostException(String key, String message) {
        this(key, message, null);
    }

    public LeaseLostException(String key, String message, @Nullable Throwable cause) {
        super(key, message, cause);
    }
}
