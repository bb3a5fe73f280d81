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
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (condition.getAsBoolean()) {
                return true;
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            pause();
        }
    }

    /** Sleeps one polling interval, restoring the interrupt flag and failing if interrupted. */
    static void pause() {
        try {
            Thread.sleep(INTERVAL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
