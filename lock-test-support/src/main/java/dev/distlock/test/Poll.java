package dev.distlock.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling: every wait in this module goes through here. */
final class Poll {

    private static final long INTERVAL_MILLIS = 10;

    private Poll() {
    }

    /** Polls {@code condition} until it holds or {@code timeout} passes; returns whether it held. */
    static boolean until(Duration timeout, BooleanSupplier condition) {
        return until(timeout, Duration.ofMillis(INTERVAL_MILLIS), condition);
    }

    /**
     * Like {@link #until(Duration, BooleanSupplier)}, pausing {@code interval} between checks: for conditions that
     * cost several Redis calls each, such as the state of a whole topology.
     */
    static boolean until(Duration timeout, Duration interval, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            sleep(interval.toMillis());
        }
    }

    /** Sleeps one polling interval, restoring the interrupt flag and failing if interrupted. */
    static void pause() {
        sleep(INTERVAL_MILLIS);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
