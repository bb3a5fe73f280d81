package dev.distlock.spring.micrometer;

import java.util.Locale;

import dev.distlock.LockInterruptedException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.RestartGraceException;

/** How an acquisition ended, as the {@code outcome} tag of metrics and observations shows it. */
enum LockOutcome {

    ACQUIRED, TIMED_OUT, RESTART_GRACE, REDIS_ERROR, INTERRUPTED, FAILED;

    private final String tagValue = name().toLowerCase(Locale.ROOT);

    /** The outcome of an acquisition that threw {@code failure}. */
    static LockOutcome of(Throwable failure) {
        if (failure instanceof LockTimeoutException) {
            return TIMED_OUT;
        }
        if (failure instanceof RestartGraceException) { // a Redis that restarted refuses for a while: not an error
            return RESTART_GRACE;
        }
        if (failure instanceof LockUnavailableException) {
            return REDIS_ERROR;
        }
        if (failure instanceof LockInterruptedException) {
            return INTERRUPTED;
        }
        return FAILED;
    }

    /**
     * {@code acquired}, {@code timed_out}, {@code restart_grace}, {@code redis_error}, {@code interrupted} or
     * {@code failed}.
     */
    String tagValue() {
        return this.tagValue;
    }
}
