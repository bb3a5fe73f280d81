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
 * @param keysAfterRelease keys left in Redis one second after every lock was released
 */
public record RenewalResult(int locks, long keysAtEnd, long windowNanos, long intervalNanos, ServerUsage server,
        long keysAfterRelease) {

    /** The same result with the keys counted after release. */
    public RenewalResult withKeysAfterRelease(long keys) {
        return new RenewalResult(this.locks, this.keysAtEnd, this.windowNanos, this.intervalNanos, this.server, keys);
    }

    /** The batch size the target is stated in. */
    public static final int BATCH = 100;

    /** Renewal periods in the measured window. */
    public double periods() {
        return (double) this.windowNanos / this.intervalNanos;
    }

    /**
     * Renewal requests per renewal period: the EVAL, EVALSHA and SCRIPT LOAD calls of the window, as every
     * implementation here renews with a script (MONITOR shows no other renewal request). Each is one round trip,
     * however many locks its script renews.
     */
    public double requestsPerPeriod() {
        return this.server.scriptRequests() / periods();
    }

    /** Renewal requests per batch of {@value #BATCH} locks per renewal period. */
    public double requestsPerBatchPeriod() {
        return requestsPerPeriod() / Math.ceil((double) this.locks / BATCH);
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
