package dev.distlock.bench.scenarios;

import dev.distlock.bench.redis.ServerUsage;

/**
 * What holding many locks cost while the watchdog kept them.
 *
 * @param locks locks held through the window
 * @param keysAtEnd lock keys alive in Redis at the end of the window (all of them if renewal worked)
 * @param windowNanos the measured window's actual length
 * @param intervalNanos the renewal period: a third of the lease for every implementation
 * @param server commands (including those inside scripts) and CPU of the window, where nothing but renewal runs
 * @param requests requests clients sent (not counting commands run inside scripts), seen with MONITOR in a second
 * window just after the measured one, so MONITOR's own cost stays out of the CPU figure
 * @param requestNanos that second window's length
 * @param keysAfterRelease keys left in Redis one second after every lock was released
 */
public record RenewalResult(int locks, long keysAtEnd, long windowNanos, long intervalNanos, ServerUsage server,
        long requests, long requestNanos, long keysAfterRelease) {

    /** The same result with the keys counted after release. */
    public RenewalResult withKeysAfterRelease(long keys) {
        return new RenewalResult(this.locks, this.keysAtEnd, this.windowNanos, this.intervalNanos, this.server,
                this.requests, this.requestNanos, keys);
    }

    /** The batch size the target is stated in. */
    public static final int BATCH = 100;

    /** Renewal periods in the measured window. */
    public double periods() {
        return (double) this.windowNanos / this.intervalNanos;
    }

    /** Client requests per batch of {@value #BATCH} locks per renewal period (from the MONITOR window). */
    public double requestsPerBatchPeriod() {
        double batches = Math.ceil((double) this.locks / BATCH);
        double periods = (double) this.requestNanos / this.intervalNanos;
        return this.requests / (batches * periods);
    }

    /** Client requests per renewal period (from the MONITOR window). */
    public double requestsPerPeriod() {
        return this.requests / ((double) this.requestNanos / this.intervalNanos);
    }

    /** Commands per renewal period, including those inside scripts (from INFO commandstats). */
    public double commandsPerPeriod() {
        return this.server.totalCalls() / periods();
    }

    /** Redis CPU per renewal period, in milliseconds. */
    public double cpuMillisPerPeriod() {
        return this.server.cpuMicros() / 1000.0 / periods();
    }
}
