package dev.distlock.bench.scenarios;

import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.bench.harness.ThreadResult;

/**
 * A hot key's shared release timestamp and exclusivity check: the holder calls {@link #releasing()} just before it
 * releases, the next to acquire calls {@link #acquired} right after its acquire returns or completes. Thread-safe;
 * each caller passes the result it alone records into.
 */
final class HandOff {

    private volatile long releasedAt;

    private final AtomicInteger holders = new AtomicInteger();

    void acquired(ThreadResult result) {
        long now = System.nanoTime();
        if (this.holders.incrementAndGet() != 1) {
            result.violation();
        }
        long released = this.releasedAt;
        if (released != 0) {
            result.handOff(now - released);
        }
    }

    void releasing() {
        this.holders.decrementAndGet();
        this.releasedAt = System.nanoTime();
    }
}
