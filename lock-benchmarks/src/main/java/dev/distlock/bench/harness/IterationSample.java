package dev.distlock.bench.harness;

import dev.distlock.bench.redis.ServerUsage;

/**
 * One measured iteration: what the clients did, what Redis did meanwhile, and how long this JVM's garbage collectors
 * ran (their pauses stall every thread, so they show in the latency tails).
 */
public record IterationSample(LoadResult load, ServerUsage server, long gcMillis) {

    /** Total collection time of this JVM's collectors so far, in milliseconds. */
    public static long gcMillisSoFar() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
            .stream()
            .mapToLong(gc -> Math.max(0, gc.getCollectionTime()))
            .sum();
    }
}
