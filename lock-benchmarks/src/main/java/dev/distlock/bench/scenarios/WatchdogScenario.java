package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.redis.MonitorTap;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.redis.ServerUsage;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;

/**
 * Scenario 4: 1,000 locks held while the watchdog keeps them alive. Measures what renewal costs Redis: commands and
 * CPU over the window, then (in a second window, so MONITOR's cost stays out of the CPU figure) the requests sent.
 */
final class WatchdogScenario implements Scenario {

    private static final int LOCKS = 1_000;

    private static final int MONITORED_PERIODS = 2;

    @Override
    public String id() {
        return "4";
    }

    @Override
    public String title() {
        return "1,000 locks held, kept alive by the watchdog";
    }

    @Override
    public String description() {
        return """
                One thread acquires %d keys and holds them. After one renewal period and 0.5 s (so that a first \
                renewal that loads its script falls outside), a window of the run's watchdog duration measures every \
                command Redis ran (INFO commandstats, including commands inside scripts) and its CPU time (INFO cpu, \
                used_cpu_sys + used_cpu_user), with nothing else running. Renewal requests are the window's EVAL, \
                EVALSHA and SCRIPT LOAD calls (each one round trip, however many locks it renews); then MONITOR \
                lists the requests clients sent over %d more renewal periods, to show there are no others. A \
                window of whole periods holds one burst more or less when the renewal timer drifts against it, so \
                per-period figures can be off by one round in the window. The lease is the same for all: distlock watchdogLease, \
                Redisson lockWatchdogTimeout, RedisLockRegistry expireAfter with a renewal task scheduler; all renew \
                every third of it. The raw floor has no watchdog (n/a). Last, the thread releases every lock and, a \
                second later, the keys left in Redis are counted.""".formatted(LOCKS, MONITORED_PERIODS);
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        long withWatchdog = implementations.stream().filter(Implementation::hasWatchdog).count();
        Duration each = config.watchdogWindow()
            .plus(config.watchdogLease().dividedBy(3).multipliedBy(MONITORED_PERIODS + 1))
            .plusSeconds(8);
        return each.multipliedBy(withWatchdog);
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        Map<Implementation, RenewalResult> results = new LinkedHashMap<>();
        StringBuilder notes = new StringBuilder();
        for (Implementation implementation : implementations) {
            if (!implementation.hasWatchdog()) {
                continue;
            }
            context.progress("Scenario 4, %s: holding %,d locks for %s", implementation.label(), LOCKS,
                    context.config().watchdogWindow());
            context.flush();
            try (LockClient client = context.open(implementation); WorkerPool holder = new WorkerPool(1, "bench-s4")) {
                List<LockClient.Held> held = holder.runOnAll(index -> acquireAll(client), Duration.ofMinutes(5))
                    .get(0);
                Measured measured;
                try {
                    measured = measure(context);
                }
                finally {
                    holder.runOnAll(index -> releaseAll(held), Duration.ofMinutes(5));
                }
                Thread.sleep(1_000);
                RenewalResult result = measured.result.withKeysAfterRelease(context.probe().keyCount());
                results.put(implementation, result);
                notes.append("- ")
                    .append(implementation.label())
                    .append(": commands per renewal period (incl. inside scripts): ")
                    .append(Notes.perUnit(result.server().calls(), result.periods()))
                    .append("; requests MONITOR saw in ")
                    .append(MONITORED_PERIODS)
                    .append(" periods after the window: ")
                    .append(Notes.perUnit(measured.requestMix, 1))
                    .append('\n');
                context.progress("  %-20s keys alive at end %d/%d, %.2f requests per 100 locks per period, %d keys "
                        + "left after release", implementation.label(), result.keysAtEnd(), LOCKS,
                        result.requestsPerBatchPeriod(), result.keysAfterRelease());
                notes.append(Notes.diagnostics(implementation, client));
            }
        }
        return new ScenarioReport(this, render(implementations, results) + "\n" + notes, Map.of(), results);
    }

    private static List<LockClient.Held> acquireAll(LockClient client) throws Exception {
        List<LockClient.Held> held = new ArrayList<>(LOCKS);
        for (int i = 0; i < LOCKS; i++) {
            held.add(client.acquire("s4:lock:" + i));
        }
        return held;
    }

    /** Releases every lock it can; scenario 9 (renewal at scale) ends its locks the same way. */
    static Void releaseAll(List<LockClient.Held> held) {
        for (LockClient.Held lock : held) {
            try {
                lock.release();
            }
            catch (Exception ex) {
                // A lock that could not be released expires with its lease; the server is flushed before the next.
            }
        }
        return null;
    }

    private record Measured(RenewalResult result, Map<String, Long> requestMix) {
    }

    private static Measured measure(BenchContext context) throws InterruptedException {
        RunConfig config = context.config();
        long interval = config.watchdogLease().dividedBy(3).toNanos();
        // The first renewal, which may load the script into Redis, falls before the window: it measures steady state.
        Thread.sleep(Duration.ofNanos(interval).plusMillis(500).toMillis());
        RedisProbe.Window window = context.probe().start();
        long start = System.nanoTime();
        Thread.sleep(config.watchdogWindow().toMillis());
        long windowNanos = System.nanoTime() - start;
        ServerUsage usage = window.finish();
        long keys = context.probe().keyCount();

        Map<String, Long> requestMix = new TreeMap<>();
        List<MonitorTap.Command> commands;
        try (MonitorTap tap = new MonitorTap(context.port())) {
            Thread.sleep(Duration.ofNanos(interval).multipliedBy(MONITORED_PERIODS).toMillis());
            commands = tap.stop();
        }
        for (MonitorTap.Command command : commands) {
            if (!command.fromScript()) {
                requestMix.merge(command.name(), 1L, Long::sum);
            }
        }
        return new Measured(new RenewalResult(LOCKS, keys, windowNanos, interval, usage, -1),
                requestMix);
    }

    private static String render(List<Implementation> implementations, Map<Implementation, RenewalResult> results) {
        RenewalResult distlock = results.get(Implementation.DISTLOCK);
        Table table = new Table("implementation", "keys alive at end", "renewal period",
                "renewal requests/period", "renewal requests per 100 locks per period", "cmds/period (incl. in scripts)", "Redis CPU ms/period",
                "Redis CPU over window", "distlock ÷ this: Redis CPU", "keys left 1 s after release");
        for (Implementation implementation : implementations) {
            RenewalResult r = results.get(implementation);
            if (r == null) {
                table.row(implementation.label(), "n/a (no watchdog)", Fmt.NONE, Fmt.NONE, Fmt.NONE, Fmt.NONE,
                        Fmt.NONE, Fmt.NONE, Fmt.NONE, Fmt.NONE);
                continue;
            }
            String cpuRatio = (distlock == null) ? Fmt.NONE
                    : Fmt.ratio((double) distlock.server().cpuMicros() / r.server().cpuMicros());
            table.row(implementation.label(), r.keysAtEnd() + "/" + r.locks(),
                    Fmt.micros(r.intervalNanos() / 1000.0), Fmt.decimal(r.requestsPerPeriod()),
                    Fmt.decimal(r.requestsPerBatchPeriod()), Fmt.decimal(r.commandsPerPeriod()),
                    Fmt.decimal(r.cpuMillisPerPeriod()), Fmt.micros(r.server().cpuMicros()), cpuRatio,
                    Long.toString(r.keysAfterRelease()));
        }
        return table.render();
    }
}
