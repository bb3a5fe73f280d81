package dev.distlock.bench.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.AsyncLockClient;
import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.redis.RedisProbe;

/** What every scenario shares: the run's settings, the server, and where progress goes. */
public final class BenchContext {

    private final RunConfig config;

    private final int port;

    private final RedisProbe probe;

    private final PrintStream progress;

    public BenchContext(RunConfig config, int port, RedisProbe probe, PrintStream progress) {
        this.config = config;
        this.port = port;
        this.probe = probe;
        this.progress = progress;
    }

    public RunConfig config() {
        return this.config;
    }

    public RedisProbe probe() {
        return this.probe;
    }

    public int port() {
        return this.port;
    }

    /** Client settings with the run's watchdog lease. */
    public ClientSettings settings() {
        return new ClientSettings(this.port, this.config.watchdogLease(), this.config.maxWait());
    }

    /** Opens a client. */
    public LockClient open(Implementation implementation) {
        return implementation.open(settings());
    }

    /** Opens a non-blocking client. */
    public AsyncLockClient openAsync(Implementation implementation) {
        return implementation.openAsync(settings());
    }

    /** Empties the server: every scenario starts on an empty one. */
    public void flush() {
        this.probe.flushAll();
    }

    public void progress(String format, Object... args) {
        this.progress.printf(format + "%n", args);
        this.progress.flush();
    }

    /**
     * Runs the warm-up iterations, then the measured ones, each inside a Redis measurement window. Implementations
     * take turns iteration by iteration (the first to go moves on by one each round), so that a slow spell of the
     * shared machine falls on all of them rather than on whichever ran then; every client stays open throughout,
     * idle while the others run.
     */
    public Map<Implementation, Measurement> measure(Map<Implementation, Iteration> iterations) throws Exception {
        List<Implementation> order = new ArrayList<>(iterations.keySet());
        Duration length = this.config.iteration();
        for (int i = 1; i <= this.config.warmups(); i++) {
            for (Implementation implementation : rotated(order, i)) {
                LoadResult warm = iterations.get(implementation).run(length);
                progress("  %-20s warm-up %d/%d: %,.0f cycles/s%s", implementation.label(), i,
                        this.config.warmups(), warm.cyclesPerSecond(), errorNote(warm));
            }
        }
        System.gc();
        Map<Implementation, List<IterationSample>> samples = new LinkedHashMap<>();
        order.forEach(implementation -> samples.put(implementation, new ArrayList<>()));
        for (int i = 1; i <= this.config.iterations(); i++) {
            for (Implementation implementation : rotated(order, i)) {
                RedisProbe.Window window = this.probe.start();
                long gcBefore = IterationSample.gcMillisSoFar();
                long cpuBefore = IterationSample.jvmCpuNanosSoFar();
                LoadResult load = iterations.get(implementation).run(length);
                long gcMillis = IterationSample.gcMillisSoFar() - gcBefore;
                long cpuAfter = IterationSample.jvmCpuNanosSoFar();
                long cpuNanos = (cpuBefore < 0 || cpuAfter < 0) ? -1 : cpuAfter - cpuBefore;
                samples.get(implementation).add(new IterationSample(load, window.finish(), gcMillis, cpuNanos));
                progress("  %-20s iteration %d/%d: %,.0f cycles/s%s", implementation.label(), i,
                        this.config.iterations(), load.cyclesPerSecond(), errorNote(load));
            }
        }
        Map<Implementation, Measurement> measurements = new LinkedHashMap<>();
        samples.forEach((implementation, list) -> measurements.put(implementation, new Measurement(List.copyOf(list))));
        return measurements;
    }

    private static List<Implementation> rotated(List<Implementation> order, int round) {
        List<Implementation> rotated = new ArrayList<>(order);
        Collections.rotate(rotated, -(round - 1) % Math.max(1, order.size()));
        return rotated;
    }

    private static String errorNote(LoadResult load) {
        return (load.errors() == 0 && load.violations() == 0) ? ""
                : " (" + load.errors() + " errors, " + load.violations() + " overlaps; first: " + load.firstError()
                        + ")";
    }

    /** One timed iteration of a scenario's load. */
    @FunctionalInterface
    public interface Iteration {

        LoadResult run(Duration length) throws Exception;
    }
}
