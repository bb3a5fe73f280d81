package dev.distlock.sample;

import java.time.Duration;

/** Sleeps, standing for slow work: a database round trip, a slow disk, a GC pause. */
public final class Pause {

    private Pause() {
    }

    public static void of(Duration duration) {
        if (duration.isZero() || duration.isNegative()) {
            return;
        }
        try {
            Thread.sleep(duration.toMillis(), duration.toNanosPart() % 1_000_000);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", ex);
        }
    }
}
