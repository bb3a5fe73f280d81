package dev.distlock.redis;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockPermissionException;
import dev.distlock.redis.script.LockScripts;

/**
 * Recognises Redis refusing the lock's user, as opposed to Redis not being reached. Servers word refusals differently:
 * Redis 7.0 "NOPERM this user has no permissions to run the 'set' command", inside a script "ERR The user executing
 * the script can't ..."; Redis 7.2+ and Valkey "NOPERM User &lt;name&gt; has no permissions to run the 'set' command",
 * "NOPERM No permissions to access a channel", inside a script "ERR ACL failure in script: ...". So a refusal is
 * recognised by what they share (the NOPERM, WRONGPASS or NOAUTH code, or one of the two forms of a refusal inside a
 * script, see {@link LockScripts#refusesPermission}), and its kind is read from its own words, without the user's
 * name that Redis 7.2+ and Valkey put in (a name may be any word, "NOAUTH" or "events-channel" too).
 */
final class PermissionRefusals {

    /** Where Redis 7.2+ and Valkey name the user; a name has no spaces (ACL SETUSER refuses them). */
    private static final Pattern USER_NAME = Pattern.compile("User \\S+ has no permissions");

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
        String words = withoutUserName(refusal);
        return words.contains("WRONGPASS") || words.contains("NOAUTH");
    }

    /** Whether the refusal was of a pub/sub channel, which the {@code &} rules of an ACL grant. */
    static boolean ofChannel(String refusal) {
        return withoutUserName(refusal).contains("channel");
    }

    private static String withoutUserName(String refusal) {
        return USER_NAME.matcher(refusal).replaceAll("User has no permissions");
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
