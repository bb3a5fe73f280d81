package dev.distlock.spring.micrometer;

import java.util.Locale;

import dev.distlock.LockInterruptedException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;

/** How an acquisition ended, as the {@code outcome} tag of metrics and observations shows it. */
enum LockOutcome {

    ACQUIRED, TIMED_OUT, REDIS_ERROR, INTERRUPTED, FAILED;

    private final String tagValue = name().toLowerCase(Locale.ROOT);

    /** The outcome of an acquisition that threw {@code failure}. */
    static LockOutcome of(Throwable failure) {
        if (failure instanceof LockTimeoutException) {
            return TIMED_OUT;
        }
        if (failure instanceof LockUnavailableException) {
            return REDIS_ERROR;
        }
        if (failure instanceof LockInterruptedException) {
            return INTERRUPTED;
        }
        return FAILED;
    }

    /** {@code acquired}, {@code timed_out}, {@code redis_error}, {@code interrupted} or {@code failed}. */
    String tagValue() {
        return this.tagValue;
    }
}
