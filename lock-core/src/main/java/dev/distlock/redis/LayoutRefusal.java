package dev.distlock.redis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockLayoutException;

/**
 * Recognises a script that met data of another layout (see layout.lua): its error reply {@code DISTLOCK_LAYOUT
 * <found> <own>}, or Redis's WRONGTYPE when a lock's key has a type this layout never gives it.
 */
final class LayoutRefusal {

    /** The data layout this version reads and writes: {@code RedisLockService.DATA_LAYOUT}. */
    static final int OWN = 1;

    private static final Pattern REPLY = Pattern.compile("DISTLOCK_LAYOUT (\\S+) (\\d+)");

    private LayoutRefusal() {
    }

    /** The exception for such a refusal met while doing {@code what} on lock {@code key}, or null if it was none. */
    static @Nullable LockLayoutException during(String what, String key, Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            String message = cause.getMessage();
            if (message == null) {
                continue;
            }
            Matcher reply = REPLY.matcher(message);
            if (reply.find()) {
                return refused(what, key, reply.group(1), "holds data of distlock's layout " + reply.group(1),
                        failure);
            }
            if (message.contains("WRONGTYPE")) {
                return refused(what, key, "unknown", "has a key of a type that layout "
                        + OWN + " never writes (" + message + ")", failure);
            }
        }
        return null;
    }

    private static LockLayoutException refused(String what, String key, String found, String words,
            Throwable failure) {
        int own = OWN;
        return new LockLayoutException(key, found, own, "Lock " + KeyText.quote(key) + " " + words
                + ", but this service reads and writes layout " + own + ": refused while " + what
                + ", nothing changed (see docs/upgrading.md: run versions at most one layout apart)", failure);
    }
}
