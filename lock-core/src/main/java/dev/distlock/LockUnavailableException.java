package dev.distlock;

/**
 * Redis could not be reached or did not answer in time, so the lock's state is unknown to the caller. This is not
 * "held by another owner": that is {@link LockTimeoutException}. An acquisition that fails this way leaves no lock
 * behind that outlives its lease.
 */
public class LockUnavailableException extends LockException {

    public LockUnavailableException(String key, String message) {
        super(key, message, null);
    }

    public LockUnavailableException(String key, String message, Throwable cause) {
        super(key, message, cause);
    }
}
