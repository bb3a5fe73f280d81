package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * The base of every exception a lock operation throws, except {@link IllegalArgumentException} for bad input. Its
 * message never holds a control or invisible format character (see {@link KeyText}), so it can be logged as it is.
 */
public abstract class LockException extends RuntimeException {

    private final String key;

    protected LockException(String key, String message, @Nullable Throwable cause) {
        super(KeyText.escape(message), cause);
        this.key = key;
    }

    /** The key of the lock the operation was about. */
    public String key() {
        return this.key;
    }
}
