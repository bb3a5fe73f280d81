package dev.distlock.internal;

import java.time.Duration;

/** Time as the services count it: {@link System#nanoTime()} readings, and waits in nanoseconds. */
public final class Durations {

    private Durations() {
    }

    /** The time since a {@link System#nanoTime()} reading. */
    public static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** A duration in nanoseconds, {@link Long#MAX_VALUE} for one too long to count so. */
    public static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }
}
