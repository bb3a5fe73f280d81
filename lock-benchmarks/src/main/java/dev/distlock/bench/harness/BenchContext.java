package dev.distlock.bench.harness;

import java.io.PrintStream;
import java.time.Duration;

import dev.distlock.bench.RunConfig;
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

    /** Opens a client on an empty server. */
    public LockClient open(Implementation implementation) {
        this.probe.flushAll();
        return implementation.open(settings());
    }

    public void progress(String format, Object... args) {
        this.progress.printf(format + "%n", args);
        this.progress.flush();
    }

    /** Runs the warm-up iterations, then the measured ones, each inside a Redis measurement window. */
    public Measurement measure(String label, Iteration iteration) throws Exception {
        Duration length = this.config.iteration();
        for (int i = 1; i <= this.config.warmups(); i++) {
            LoadResult warm = iteration.run(length);
            progress("  %-20s warm-up %d/%d: %,.0f cycles/s%s", label, i, this.config.warmups(),
                    warm.cyclesPerSecond(), errorNote(warm));
        }
        System.gc();
        java.util.List<IterationSample> samples = new java.util.ArrayList<>();
        for (int i = 1; i <= this.config.iterations(); i++) {
            RedisProbe.Window window = this.probe.start();
            LoadResult load = iteration.run(length);
            samples.add(new IterationSample(load, window.finish()));
            progress("  %-20s iteration %d/%d: %,.0f cycles/s%s", label, i, this.config.iterations(),
                    load.cyclesPerSecond(), errorNote(load));
        }
        return new Measurement(java.util.List.copyOf(samples));
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
