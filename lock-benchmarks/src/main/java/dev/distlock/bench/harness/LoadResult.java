package dev.distlock.bench.harness;

import java.util.List;

import org.HdrHistogram.Histogram;

/**
 * The client side of one iteration, merged over its threads.
 *
 * @param cycles completed lock cycles (acquire + release)
 * @param elapsedNanos from the common start to the last thread's end
 * @param cycleLatency per-cycle latency, acquire call to release return
 * @param handOff release-to-next-acquire latency (empty when the scenario has none)
 * @param fewestCycles the fewest cycles any one thread (or chain of non-blocking cycles) completed: far below the
 * mean, some were starved while others got the lock
 */
public record LoadResult(long cycles, long elapsedNanos, Histogram cycleLatency, Histogram handOff, long errors,
        long violations, String firstError, long fewestCycles) {

    public static LoadResult merge(List<ThreadResult> threads, long startNanos) {
        Histogram cycleLatency = Latencies.newHistogram();
        Histogram handOff = Latencies.newHistogram();
        long cycles = 0;
        long errors = 0;
        long violations = 0;
        long fewestCycles = threads.isEmpty() ? 0 : Long.MAX_VALUE;
        long end = startNanos;
        String firstError = null;
        for (ThreadResult thread : threads) {
            cycleLatency.add(thread.cycleLatency);
            handOff.add(thread.handOff);
            cycles += thread.cycles;
            fewestCycles = Math.min(fewestCycles, thread.cycles);
            errors += thread.errors;
            violations += thread.violations;
            end = Math.max(end, thread.finishedAt);
            if (firstError == null) {
                firstError = thread.firstError;
            }
        }
        return new LoadResult(cycles, Math.max(1, end - startNanos), cycleLatency, handOff, errors, violations,
                firstError, fewestCycles);
    }

    public double cyclesPerSecond() {
        return this.cycles * 1e9 / this.elapsedNanos;
    }
}
