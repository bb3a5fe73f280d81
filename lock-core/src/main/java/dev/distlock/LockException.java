package dev.distlock;

import org.jspecify.annotations.Nullable;

/** The base of every exception a lock operation throws, except {@link IllegalArgumentException} for bad input. */
public abstract class LockException extends RuntimeException {

    private final String key;

    protected LockException(String key, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    /** The key of the lock the operation was about. */
    public String key() {
        return this.key;
    }
}
