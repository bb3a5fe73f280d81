package dev.distlock.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.LockUnavailableException;

/**
 * Checks that the Redis user may do everything the lock does, by running each script once on a probe lock and opening
 * the release subscription, so that a missing ACL permission fails at start-up with the grant it needs.
 */
final class AccessCheck {

    static final String PROBE_KEY = "distlock-access-check";

    private AccessCheck() {
    }

    /** The ACL rules the lock needs, for a user whose keys and channels start with {@code prefix}. */
    static String requiredAcl(String prefix) {
        return "~" + prefix + ":* &" + prefix + ":* +@connection +evalsha +eval +hget +hset +hsetnx +hdel +hincrby "
                + "+pexpire +pttl +time +publish +subscribe +unsubscribe";
    }

    /**
     * Runs the check.
     *
     * @throws IllegalStateException when Redis refuses a command for lack of permission
     * @throws LockUnavailableException when Redis cannot be reached
     */
    static void run(LockKeys keys, LockScripts scripts, ReleaseSubscriptions subscriptions, String ownerToken,
            String clientId) {
        String hash = keys.lockHash(PROBE_KEY);
        String channel = keys.releaseChannel(PROBE_KEY);
        try {
            if (scripts.acquire(hash, ownerToken, "1", "5000") > 0) {
                scripts.renew(List.of(hash), List.of(ownerToken), "5000");
                scripts.release(hash, ownerToken, "1", channel, clientId, "0", "0"); // PEXPIRE 0 deletes it
            }
            subscriptions.open();
        }
        catch (DataAccessException ex) {
            String refusal = permissionRefusal(ex);
            if (refusal != null) {
                throw new IllegalStateException("The Redis user may not run a command the lock needs (" + refusal
                        + "). Grant it with: ACL SETUSER <user> " + requiredAcl(keys.prefix()), ex);
            }
            throw new LockUnavailableException(PROBE_KEY,
                    "Redis could not be reached to check the lock's permissions: " + ex.getMessage(), ex);
        }
    }

    /** Redis's words when it refused for lack of permission (NOPERM, or a script's command refused), else null. */
    private static @Nullable String permissionRefusal(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && (message.contains("NOPERM") || message.contains("can't run this command"))) {
                return message;
            }
        }
        return null;
    }
}
