package dev.distlock.bench.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.AsyncLockClient;
import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.redis.ServerUsage;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;

/** What every scenario shares: the run's settings, the server, and where progress goes. */
public final class BenchContext {

    private final RunConfig config;

    private final int port;

    private final RedisProbe probe;

    private final PrintStream progress;

    private final RedisServers servers;

    private final RedisNodeConfig nodeConfig;

    public BenchContext(RunConfig config, int port, RedisProbe probe, PrintStream progress) {
        this(config, port, probe, progress, null, null);
    }

    /**
     * @param servers where scenarios start further servers (a Redis Cluster), or null where they may not
     * @param nodeConfig how the benchmark's server was started (its build), for further servers
     */
    public BenchContext(RunConfig config, int port, RedisProbe probe, PrintStream progress, RedisServers servers,
            RedisNodeConfig nodeConfig) {
        this.config = config;
        this.port = port;
        this.probe = probe;
        this.progress = progress;
        this.servers = servers;
        this.nodeConfig = nodeConfig;
    }

    /**
     * Starts a Redis Cluster of {@code masters} masters without replicas, on the benchmark server's build; it stops
     * with the run's other servers, or when closed by the caller.
     */
    public ClusterTopology startCluster(int masters) {
        if (this.servers == null) {
            throw new IllegalStateException("this run cannot start further servers");
        }
        return this.servers.startCluster(masters, 0, this.nodeConfig);
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
        return measure(iterations, Implementation::label, () -> this.probe.start()::finish);
    }

    /**
     * {@link #measure(Map)} for loads named otherwise (a lock type, say), with Redis windows opened by
     * {@code windows} (one node's, or the sum over a cluster's masters).
     */
    public <K> Map<K, Measurement> measure(Map<K, Iteration> iterations, Function<K, String> labels,
            Supplier<ServerWindow> windows) throws Exception {
        List<K> order = new ArrayList<>(iterations.keySet());
        Duration length = this.config.iteration();
        for (int i = 1; i <= this.config.warmups(); i++) {
            for (K key : rotated(order, i)) {
                LoadResult warm = iterations.get(key).run(length);
                progress("  %-20s warm-up %d/%d: %,.0f cycles/s%s", labels.apply(key), i,
                        this.config.warmups(), warm.cyclesPerSecond(), errorNote(warm));
            }
        }
        System.gc();
        Map<K, List<IterationSample>> samples = new LinkedHashMap<>();
        order.forEach(key -> samples.put(key, new ArrayList<>()));
        for (int i = 1; i <= this.config.iterations(); i++) {
            for (K key : rotated(order, i)) {
                ServerWindow window = windows.get();
                long gcBefore = IterationSample.gcMillisSoFar();
                long cpuBefore = IterationSample.jvmCpuNanosSoFar();
                LoadResult load = iterations.get(key).run(length);
                long gcMillis = IterationSample.gcMillisSoFar() - gcBefore;
                long cpuAfter = IterationSample.jvmCpuNanosSoFar();
                long cpuNanos = (cpuBefore < 0 || cpuAfter < 0) ? -1 : cpuAfter - cpuBefore;
                samples.get(key).add(new IterationSample(load, window.finish(), gcMillis, cpuNanos));
                progress("  %-20s iteration %d/%d: %,.0f cycles/s%s", labels.apply(key), i,
                        this.config.iterations(), load.cyclesPerSecond(), errorNote(load));
            }
        }
        Map<K, Measurement> measurements = new LinkedHashMap<>();
        samples.forEach((key, list) -> measurements.put(key, new Measurement(List.copyOf(list))));
        return measurements;
    }

    /** A measurement window on Redis, opened before an iteration's load and finished after it. */
    @FunctionalInterface
    public interface ServerWindow {

        ServerUsage finish();
    }

    private static <K> List<K> rotated(List<K> order, int round) {
        List<K> rotated = new ArrayList<>(order);
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
