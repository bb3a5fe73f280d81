package dev.distlock;

/**
 * The thread was interrupted while waiting for a lock. Nothing was acquired and the thread's interrupt flag is set
 * again, so code further up still sees the interrupt.
 */
public class LockInterruptedException extends LockException {

    public LockInterruptedException(String key, InterruptedException cause) {
        super(key, "Interrupted while waiting for lock " + KeyText.quote(key), cause);
    }
}
