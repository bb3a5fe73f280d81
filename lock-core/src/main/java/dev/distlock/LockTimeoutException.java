package dev.distlock;

import java.time.Duration;
import java.util.Locale;

/** The lock was still held by another owner when the wait limit ran out. Nothing was acquired. */
public class LockTimeoutException extends LockException {

    private final Duration waited;

    public LockTimeoutException(String key, Duration waited) {
        super(key, "Lock " + KeyText.quote(key) + " is held by another owner; not acquired within " + readable(waited),
                null);
        this.waited = waited;
    }

    /** {@code 250 ms}, {@code 5.0 s}, {@code 2 min 5 s}: for the message, where an ISO duration reads badly. */
    private static String readable(Duration waited) {
        long millis = waited.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return waited.toMinutes() + " min " + waited.toSecondsPart() + " s";
    }

    /** How long the caller waited. */
    public Duration waited() {
        return this.waited;
    }
}
