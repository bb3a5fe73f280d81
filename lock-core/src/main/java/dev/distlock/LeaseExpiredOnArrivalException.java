package dev.distlock;

/**
 * Redis granted the lock, but its answer reached this process only after the lease had ended (a stalled Redis, a
 * loaded machine, a cold connection), so the lock may already belong to someone else: the grant was undone and nothing
 * was acquired. A waiting {@code acquire} tries again by itself; a single attempt ({@code tryAcquire}, a zero wait)
 * throws this. A lease this close to Redis's answer time is too short.
 */
public class LeaseExpiredOnArrivalException extends LockUnavailableException {

    public LeaseExpiredOnArrivalException(String key, String message) {
        super(key, message);
    }
}
