package dev.distlock.bench.harness;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts an iteration's threads together: each calls {@link #await()} once it is ready; the last one in fixes the
 * common start time and the deadline.
 */
public final class Gate {

    private final CountDownLatch ready;

    private final CountDownLatch go = new CountDownLatch(1);

    private final long durationNanos;

    private volatile long start;

    public Gate(int parties, long durationNanos) {
        this.ready = new CountDownLatch(parties);
        this.durationNanos = durationNanos;
    }

    /** Waits for every party, then returns the common deadline. */
    public long await() throws InterruptedException {
        this.ready.countDown();
        if (this.ready.getCount() == 0) {
            synchronized (this) {
                if (this.start == 0) {
                    this.start = System.nanoTime();
                    this.go.countDown();
                }
            }
        }
        if (!this.go.await(1, TimeUnit.MINUTES)) {
            throw new IllegalStateException("load threads did not all start within a minute");
        }
        return this.start + this.durationNanos;
    }

    public long start() {
        return this.start;
    }
}
