package dev.distlock.bench.harness;

import org.HdrHistogram.Histogram;

/** What one load thread saw in one iteration. Confined to that thread until the iteration ends. */
public final class ThreadResult {

    final Histogram cycleLatency = Latencies.newHistogram();

    final Histogram handOff = Latencies.newHistogram();

    long cycles;

    long errors;

    long violations;

    String firstError;

    long finishedAt;

    public void cycle(long nanos) {
        this.cycles++;
        Latencies.record(this.cycleLatency, nanos);
    }

    /** A cycle whose latency is not recorded (e.g. a waiter draining a round). */
    public void uncountedLatencyCycle() {
        this.cycles++;
    }

    public void handOff(long nanos) {
        Latencies.record(this.handOff, nanos);
    }

    /** Two holders at once: a broken lock. */
    public void violation() {
        this.violations++;
    }

    public void error(Exception ex) {
        this.errors++;
        if (this.firstError == null) {
            this.firstError = ex.toString();
        }
    }

    public long errors() {
        return this.errors;
    }

    public void finished() {
        this.finishedAt = System.nanoTime();
    }
}
