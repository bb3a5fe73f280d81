package dev.distlock;

/**
 * A release or renewal found the lock held by another owner: the caller's lease had been lost and someone else
 * acquired the lock since. Nothing was changed in Redis; the other owner's lock stays intact.
 */
public class NotLockOwnerException extends LeaseLostException {

    public NotLockOwnerException(String key, String message) {
        super(key, message);
    }
}
