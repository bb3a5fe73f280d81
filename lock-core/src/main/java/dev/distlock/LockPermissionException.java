package dev.distlock;

import org.jspecify.annotations.Nullable;

/**
 * Redis refused the lock's Redis user: a command, key or channel the lock needs is not granted by its ACL (NOPERM, a
 * script's command refused), or its credentials were refused on reconnect (WRONGPASS, NOAUTH). Redis was reached, so
 * this is not {@link LockUnavailableException}; retrying does not help until the grant is fixed. The message keeps
 * Redis's words, which name what was refused. An acquisition that fails this way leaves no lock behind.
 */
public class LockPermissionException extends LockException {

    public LockPermissionException(String key, String message, @Nullable Throwable cause) {
        super(key, message, cause);
    }
}
