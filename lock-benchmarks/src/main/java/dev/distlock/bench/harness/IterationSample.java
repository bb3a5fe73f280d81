package dev.distlock.bench.harness;

import dev.distlock.bench.redis.ServerUsage;

/**
 * One measured iteration: what the clients did, what Redis did meanwhile, how long this JVM's garbage collectors
 * ran (their pauses stall every thread, so they show in the latency tails), and the CPU time this JVM used on all its
 * threads (load, client I/O and everything else), to set against Redis's.
 */
public record IterationSample(LoadResult load, ServerUsage server, long gcMillis, long jvmCpuNanos) {

    /** Total collection time of this JVM's collectors so far, in milliseconds. */
    public static long gcMillisSoFar() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
            .stream()
            .mapToLong(gc -> Math.max(0, gc.getCollectionTime()))
            .sum();
    }

    /** CPU time this JVM has used so far, in nanoseconds, or -1 where the platform does not tell. */
    public static long jvmCpuNanosSoFar() {
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
