package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.AsyncLockClient;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.Closer;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;

/**
 * The non-blocking APIs: one thread keeps N lock cycles in flight ({@link AsyncLoad}), on a key per chain (scenario
 * 7, next to the raw floor's blocking 16-thread load of scenario 2 as the reference) or all on one hot key (scenario
 * 8, with scenario 3's hand-off and exclusivity check).
 */
final class AsyncCycleScenario implements Scenario {

    private static final int REFERENCE_THREADS = 16;

    private final String id;

    private final String title;

    private final String description;

    private final boolean hotKey;

    private AsyncCycleScenario(String id, String title, String description, boolean hotKey) {
        this.id = id;
        this.title = title;
        this.description = description;
        this.hotKey = hotKey;
    }

    static AsyncCycleScenario distinctKeys() {
        return new AsyncCycleScenario("7", "One thread, N non-blocking cycles in flight, a key each", """
                One thread starts N chains of lock cycles through the non-blocking API (N = --in-flight, 64 by \
                default; shown in the table), each chain on a key of its own: acquire, then release once it \
                completes, then the next acquire once the release completes, started from that completion on the \
                client's I/O thread (no thread blocks). Redisson's locks belong to a thread, so each chain passes a \
                thread id of its own. Latency is one cycle, from the acquire call to the release's completion. The \
                raw floor runs scenario 2's blocking load (%d threads, a key each) in turns with them, as the \
                reference the targets name, and raw-floor-async (Lettuce's async SET NX PX and an EVALSHA                 compare-and-delete on one connection, N chains as the others) is the non-blocking floor. "busy cores" is Redis's CPU time and this JVM's (all its threads) over \
                the load's wall time, out of %d cores that both share.""".formatted(REFERENCE_THREADS,
                Runtime.getRuntime().availableProcessors()), false);
    }

    static AsyncCycleScenario hotKey() {
        return new AsyncCycleScenario("8", "One thread, N non-blocking cycles in flight on one hot key", """
                As scenario 7, but every chain locks the same key, each acquisition waiting up to 30 s: mutual \
                exclusion lets one cycle hold the key at a time, so throughput is bounded by the hand-off from one \
                release to the next grant. Hand-off latency and the exclusivity check are scenario 3's: \
                System.nanoTime() is noted just before the release is called and read when the next acquisition \
                completes. Fairness: "cycle max" is the longest cycle (an acquisition that waited through the whole \
                iteration shows as about its length), and "fewest cycles of a chain" the least any one chain \
                completed in an iteration, against the mean per chain: far below it, some chains were starved \
                while others took the lock again and again.""", true);
    }

    @Override
    public String id() {
        return this.id;
    }

    @Override
    public String title() {
        return this.title;
    }

    @Override
    public String description() {
        return this.description;
    }

    /**
     * The non-blocking implementations, and in scenario 7 the raw floors, blocking and non-blocking, and the
     * non-blocking fenced floor, as references.
     */
    @Override
    public boolean covers(Implementation implementation) {
        if (implementation == Implementation.RAW || implementation == Implementation.RAW_ASYNC) {
            return !this.hotKey;
        }
        return implementation.isAsync() && implementation.runsIn(this.id);
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        return config.timedLoad().plusSeconds(1).multipliedBy(implementations.size()).plusSeconds(5);
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        context.flush();
        context.progress("Scenario %s: %s", this.id, this.title);
        int inFlight = context.config().inFlight();
        Duration timeout = context.config().iteration().plus(context.config().maxWait()).plusSeconds(30);
        Map<Implementation, String> loads = new LinkedHashMap<>();
        StringBuilder diagnostics = new StringBuilder();
        Map<Implementation, Measurement> measurements;
        try (Closer closer = new Closer()) {
            Map<Implementation, BenchContext.Iteration> iterations = new LinkedHashMap<>();
            // the non-blocking rows first, the blocking reference last
            for (Implementation implementation : implementations.stream()
                .sorted(Comparator.comparing(implementation -> !implementation.isAsync()))
                .toList()) {
                if (implementation.isAsync()) {
                    AsyncLockClient client = closer.add(context.openAsync(implementation));
                    String prefix = "s" + this.id + (this.hotKey ? ":hot" : ":chain:");
                    iterations.put(implementation, length -> new AsyncLoad(client,
                            chain -> this.hotKey ? prefix : prefix + chain, this.hotKey ? new HandOff() : null,
                            inFlight).run(length, timeout));
                    loads.put(implementation, "1 thread, " + inFlight + " in flight");
                }
                else {
                    LockClient client = closer.add(context.open(implementation));
                    WorkerPool pool = closer.add(new WorkerPool(REFERENCE_THREADS, "bench-s" + this.id));
                    LockCycleScenario ownKeys = LockCycleScenario.ownKeys();
                    iterations.put(implementation, length -> ownKeys.iteration(client, pool, length, context));
                    loads.put(implementation, REFERENCE_THREADS + " threads, blocking");
                    diagnostics.append(Notes.diagnostics(implementation, client));
                }
            }
            measurements = context.measure(iterations);
        }
        return new ScenarioReport(this, render(measurements, loads, inFlight) + diagnostics, measurements, Map.of());
    }

    private String render(Map<Implementation, Measurement> measurements, Map<Implementation, String> loads,
            int inFlight) {
        Measurement subject = measurements.get(Implementation.DISTLOCK_ASYNC);
        String ratioHeader = Implementation.DISTLOCK_ASYNC.label() + " ÷ this: ";
        Table table = this.hotKey
                ? new Table("implementation", "load", "cycles/s median (min–max)", "cycle p50", "cycle p99",
                        "cycle max", "fewest cycles of a chain (mean)", "hand-off p50", "hand-off p99 (min–max)",
                        "cmds/cycle", "scripts/cycle",
                        "Redis CPU µs/cycle", "busy cores: Redis / JVM", ratioHeader + "cycles/s",
                        ratioHeader + "hand-off p99")
                : new Table("implementation", "load", "cycles/s median (min–max)", "cycle p50",
                        "cycle p99 (min–max)", "cmds/cycle", "scripts/cycle", "Redis CPU µs/cycle",
                        "JVM CPU µs/cycle", "busy cores: Redis / JVM", ratioHeader + "cycles/s");
        StringBuilder notes = new StringBuilder();
        measurements.forEach((implementation, m) -> {
            String throughputRatio = (subject == null) ? Fmt.NONE
                    : Fmt.ratio(subject.cyclesPerSecond().median() / m.cyclesPerSecond().median());
            String busy = Fmt.decimal(m.redisCores().median()) + " / " + Fmt.decimal(m.jvmCores().median());
            if (this.hotKey) {
                String handOffRatio = (subject == null) ? Fmt.NONE
                        : Fmt.ratio(subject.handOffMicros(99).median() / m.handOffMicros(99).median());
                double meanPerChain = (double) m.cycles() / Math.max(1, m.samples().size()) / inFlight;
                table.row(implementation.label(), loads.get(implementation), Fmt.countRange(m.cyclesPerSecond()),
                        Fmt.micros(m.cycleLatencyMicros(50).median()), Fmt.micros(m.cycleLatencyMicros(99).median()),
                        Fmt.micros(m.cycleLatencyMicros(100).median()), Fmt.count(m.fewestCycles().median()) + " ("
                                + Fmt.count(meanPerChain) + ")",
                        Fmt.micros(m.handOffMicros(50).median()), Fmt.microsRange(m.handOffMicros(99)),
                        Fmt.decimal(m.commandsPerCycle()), Fmt.decimal(m.scriptCallsPerCycle()),
                        Fmt.decimal(m.redisCpuMicrosPerCycle()), busy, throughputRatio, handOffRatio);
            }
            else {
                table.row(implementation.label(), loads.get(implementation), Fmt.countRange(m.cyclesPerSecond()),
                        Fmt.micros(m.cycleLatencyMicros(50).median()), Fmt.microsRange(m.cycleLatencyMicros(99)),
                        Fmt.decimal(m.commandsPerCycle()), Fmt.decimal(m.scriptCallsPerCycle()),
                        Fmt.decimal(m.redisCpuMicrosPerCycle()), Fmt.decimal(m.jvmCpuMicrosPerCycle()), busy,
                        throughputRatio);
            }
            notes.append(Notes.commandMix(implementation, m));
            notes.append(Notes.problems(implementation, m));
        });
        return table.render() + "\n" + notes;
    }
}
