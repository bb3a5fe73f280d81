package dev.distlock.redis;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockPermissionException;
import dev.distlock.redis.script.LockScripts;

/** Recognises Redis refusing the lock's user, as opposed to Redis not being reached. */
final class PermissionRefusals {

    private PermissionRefusals() {
    }

    /**
     * Redis's words when it refused for lack of permission (NOPERM, a script's command or channel refused) or refused
     * the credentials (WRONGPASS, NOAUTH), else null.
     */
    static @Nullable String of(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && (LockScripts.refusesPermission(message) || message.contains("WRONGPASS")
                    || message.contains("NOAUTH"))) {
                return message;
            }
        }
        return null;
    }

    /** Whether Redis refused the credentials (a wrong password, an unknown user, none given), not a grant. */
    static boolean ofCredentials(String refusal) {
        return refusal.contains("WRONGPASS") || refusal.contains("NOAUTH");
    }

    /** Whether the refusal was of a pub/sub channel, which the {@code &} rules of an ACL grant. */
    static boolean ofChannel(String refusal) {
        return refusal.contains("channel");
    }

    /** The exception for a refusal met while doing {@code what} on lock {@code key}, or null if it was none. */
    static @Nullable LockPermissionException during(String what, String key, Throwable failure) {
        String refusal = of(failure);
        if (refusal == null) {
            return null;
        }
        return new LockPermissionException(key, "Redis refused the lock's Redis user while " + what + " lock "
                + KeyText.quote(key) + ": " + refusal + " (see RedisLockService.requiredAcl() for the grants the "
                + "lock needs)", failure);
    }
}
