package dev.distlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.api.async.RedisAclAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Whether a service's lock scripts run the ACL guard (acl-guard.lua): checks, before a path's first write, that the
 * Redis user may run every command from there on, so that a grant revoked while the application runs fails a script
 * whole, never half-way. The guard costs Redis 2–14% of a script's time (docs/benchmarks.md), and it can only matter for a
 * user whose ACL can refuse something: a user granted every command, key and channel ({@code +@all ~* &*}) runs the
 * scripts without it, as decided by {@link #decide} (at start-up, see RedisLockService#verifyAccess); until then, and
 * for good after the first permission refusal any script meets ({@link #noteFailure}), the guard is on.
 *
 * <p>What leaving it out risks: an administrator who takes a command away from such a user while the application
 * runs can fail scripts already sent half-way (for example a lock key written without its expiry); every script sent
 * after the first refusal is noted runs guarded. A user granted exactly what the lock needs is always guarded. On a
 * Redis Cluster the ACL is read on one node: every node is expected to have the same users.
 */
final class AclGuard {

    private static final Log logger = LogFactory.getLog(AclGuard.class);

    /** How long {@link #decide} waits for each answer. */
    private static final long ANSWER_SECONDS = 10;

    private volatile boolean on = true;

    /** Set by the first refusal met without the guard: it stays on from then on, whatever {@link #decide} finds. */
    private boolean refused;

    /** The variant of {@code script} to run: without the guard when it is off and the script has one. */
    <T> RedisScript<T> select(RedisScript<T> script) {
        if (!this.on && script instanceof GuardedScript<T> guarded) {
            RedisScript<T> unguarded = guarded.unguarded();
            if (unguarded != null) {
                return unguarded;
            }
        }
        return script;
    }

    boolean isOn() {
        return this.on;
    }

    /**
     * Asks Redis for the user's ACL ({@code ACL WHOAMI}, {@code ACL GETUSER}) and turns the guard off when it grants
     * every command, key and channel; leaves it on when it does not, or when Redis will not say (a user who may not
     * run ACL, a Redis without ACLs, a proxy).
     */
    void decide(StringRedisTemplate redis) {
        boolean unrestricted;
        try {
            unrestricted = Boolean.TRUE.equals(redis.execute((RedisCallback<Boolean>) connection -> {
                if (!(connection.getNativeConnection() instanceof RedisAclAsyncCommands<?, ?> acl)) {
                    return false;
                }
                String user = LettuceFutures.awaitOrCancel(acl.aclWhoami(), ANSWER_SECONDS, TimeUnit.SECONDS);
                return grantsEverything(LettuceFutures.awaitOrCancel(acl.aclGetuser(user), ANSWER_SECONDS,
                        TimeUnit.SECONDS));
            }));
        }
        catch (RuntimeException ex) { // refused (NOPERM), unknown command, no answer: keep the guard
            unrestricted = false;
        }
        decided(unrestricted);
    }

    /** Off for a user granted everything, unless a refusal was met before: then it stays on. */
    synchronized void decided(boolean unrestricted) {
        this.on = this.refused || !unrestricted;
    }

    /**
     * Whether an {@code ACL GETUSER} reply (Redis 7: {@code commands "+@all"}, {@code keys "~*"}, {@code channels
     * "&*"}, as a flat list of names and values or as a map) grants every command, key and channel.
     */
    static boolean grantsEverything(@Nullable Object reply) {
        List<Object> entries = new ArrayList<>();
        if (reply instanceof Map<?, ?> map) {
            map.forEach((name, value) -> {
                entries.add(name);
                entries.add(value);
            });
        }
        else if (reply instanceof List<?> list) {
            entries.addAll(list);
        }
        String commands = null;
        String keys = null;
        String channels = null;
        for (int i = 0; i + 1 < entries.size(); i += 2) {
            String name = text(entries.get(i));
            String value = text(entries.get(i + 1));
            if ("commands".equals(name)) {
                commands = value;
            }
            else if ("keys".equals(name)) {
                keys = value;
            }
            else if ("channels".equals(name)) {
                channels = value;
            }
        }
        return "+@all".equals(commands) && "~*".equals(keys) && "&*".equals(channels);
    }

    /**
     * A script failed: when Redis refused a command for lack of permission ({@link #refusesPermission}) while the guard
     * was off, it is on from now on, and a warning says so. Never throws.
     */
    void noteFailure(Throwable failure) {
        if (this.on) {
            return;
        }
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message != null && refusesPermission(message)) {
                synchronized (this) {
                    this.refused = true;
                    if (!this.on) {
                        this.on = true;
                        logger.warn("Redis refused the lock's user a command (" + message + ") although its ACL "
                                + "granted every command, key and channel at start-up; the lock scripts check the "
                                + "user's grants before writing from now on. Scripts sent before this one may have "
                                + "stopped half-way: a lock key left without an expiry (TTL -1) stays held until "
                                + "deleted by hand.");
                    }
                }
                return;
            }
        }
    }

    /**
     * Whether Redis's words say it refused a command, key or channel for lack of permission: NOPERM to a client's own
     * command or from the ACL guard, or its error for a command a script ran.
     */
    static boolean refusesPermission(String message) {
        return message.contains("NOPERM") // a client's own command, and the ACL guard's refusal
                || message.contains("The user executing the script") // Redis 7.0: a script's command, key, channel
                || message.contains("ACL failure in script") // Redis 7.2 and Valkey: the same
                || message.contains("no permissions to") || message.contains("lacking the permissions")
                || message.contains("can't run this command") || message.contains("can't publish")
                || message.contains("permissions to access");
    }

    private static @Nullable String text(@Nullable Object value) {
        if (value instanceof byte[] raw) {
            return new String(raw, StandardCharsets.UTF_8);
        }
        return (value instanceof String string) ? string : null;
    }

}
