package dev.distlock.test;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds or a deadline passes: the tests' one way to wait, never a fixed sleep. */
public final class Await {

    private Await() {
    }

    /**
     * Polls {@code condition} every few milliseconds until it holds.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@code limit}
     */
    public static void until(Duration limit, BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Not true within " + limit + ": " + what);
            }
            try {
                Thread.sleep(5);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for: " + what, ex);
            }
        }
    }
}
