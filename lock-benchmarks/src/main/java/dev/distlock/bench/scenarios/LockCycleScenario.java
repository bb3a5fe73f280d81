package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.Closer;
import dev.distlock.bench.harness.Gate;
import dev.distlock.bench.harness.LoadResult;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.ThreadResult;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;

/**
 * Threads doing lock/unlock cycles as fast as they can: scenario 1 (one thread), 2 (16 threads, a key each) and 3
 * (16 threads on one hot key, with the hand-off latency from one release to the next acquire).
 */
final class LockCycleScenario implements Scenario {

    private static final int THREADS = 16;

    private final String id;

    private final String title;

    private final String description;

    private final int threads;

    private final boolean hotKey;

    private LockCycleScenario(String id, String title, String description, int threads, boolean hotKey) {
        this.id = id;
        this.title = title;
        this.description = description;
        this.threads = threads;
        this.hotKey = hotKey;
    }

    static LockCycleScenario uncontended() {
        return new LockCycleScenario("1", "One thread, uncontended lock/unlock", """
                One thread acquires and releases one key in a loop, nothing else running: the cost of a lock cycle \
                when nobody competes. Latency is one cycle, from the acquire call to the release's return. After \
                the measured iterations, MONITOR records 20 more cycles to show what one cycle sends.""", 1, false);
    }

    static LockCycleScenario ownKeys() {
        return new LockCycleScenario("2", THREADS + " threads, one key each", """
                %d threads of one client each lock and unlock a key of their own in a loop: no contention, but \
                the client's connections, threads and bookkeeping are shared.""".formatted(THREADS), THREADS,
                false);
    }

    static LockCycleScenario hotKey() {
        return new LockCycleScenario("3", THREADS + " threads, one hot key", """
                %d threads of one client compete for one key, releasing right after acquiring. Hand-off latency: \
                the releasing thread writes System.nanoTime() to a shared volatile just before it calls release; \
                the next thread to acquire (any thread, the same one included) reads it right after its acquire \
                returns. A shared counter checks that no two threads ever hold the key at once.""".formatted(THREADS),
                THREADS, true);
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

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        Duration overhead = Duration.ofSeconds(this.id.equals("1") ? 3 : 1);
        return config.timedLoad().plus(overhead).multipliedBy(implementations.size()).plusSeconds(5);
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        context.flush();
        context.progress("Scenario %s: %s", this.id, this.title);
        Map<Implementation, String> traces = new LinkedHashMap<>();
        StringBuilder diagnostics = new StringBuilder();
        Map<Implementation, Measurement> measurements;
        try (Closer closer = new Closer()) {
            Map<Implementation, LockClient> clients = new LinkedHashMap<>();
            Map<Implementation, BenchContext.Iteration> iterations = new LinkedHashMap<>();
            for (Implementation implementation : implementations) {
                LockClient client = closer.add(context.open(implementation));
                WorkerPool pool = closer.add(new WorkerPool(this.threads, "bench-s" + this.id));
                clients.put(implementation, client);
                iterations.put(implementation, length -> iteration(client, pool, length, context));
            }
            measurements = context.measure(iterations);
            for (Map.Entry<Implementation, LockClient> entry : clients.entrySet()) {
                if (this.id.equals("1")) {
                    traces.put(entry.getKey(), ProtocolTrace.ofOneCycle(entry.getValue(), context.port(), "s1:trace"));
                }
                diagnostics.append(Notes.diagnostics(entry.getKey(), entry.getValue()));
            }
        }
        return new ScenarioReport(this, render(measurements, traces) + diagnostics, measurements, Map.of());
    }

    /**
     * Warms the JVM up before any scenario: every implementation runs this scenario's load for {@code length}, so
     * that code they share (Netty, Lettuce, Spring Data Redis) is compiled before the first one is measured.
     */
    void warmUp(List<Implementation> implementations, BenchContext context, Duration length) throws Exception {
        context.flush();
        for (Implementation implementation : implementations) {
            try (LockClient client = context.open(implementation);
                    WorkerPool pool = new WorkerPool(this.threads, "bench-warm-up")) {
                LoadResult load = iteration(client, pool, length, context);
                context.progress("JVM warm-up, %-20s %,.0f cycles/s", implementation.label(),
                        load.cyclesPerSecond());
            }
        }
    }

    LoadResult iteration(LockClient client, WorkerPool pool, Duration length, BenchContext context)
            throws Exception {
        Gate gate = new Gate(this.threads, length.toNanos());
        HandOff handOff = this.hotKey ? new HandOff() : null;
        Duration timeout = length.plus(context.config().maxWait()).plusSeconds(30);
        List<ThreadResult> results = pool.runOnAll(index -> {
            String key = this.hotKey ? "s" + this.id + ":hot" : "s" + this.id + ":own:" + index;
            return loop(client, key, gate, handOff);
        }, timeout);
        return LoadResult.merge(results, gate.start());
    }

    private static ThreadResult loop(LockClient client, String key, Gate gate, HandOff handOff)
            throws InterruptedException {
        ThreadResult result = new ThreadResult();
        long deadline = gate.await();
        while (System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted()) {
            long start = System.nanoTime();
            try {
                LockClient.Held held = client.acquire(key);
                if (handOff != null) {
                    handOff.acquired(result);
                    handOff.releasing();
                }
                held.release();
                result.cycle(System.nanoTime() - start);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (Exception ex) {
                result.error(ex);
                if (result.errors() > 1_000) {
                    break;
                }
            }
        }
        result.finished();
        return result;
    }

    private String render(Map<Implementation, Measurement> measurements, Map<Implementation, String> traces) {
        Measurement distlock = measurements.get(Implementation.DISTLOCK);
        Table table = this.hotKey
                ? new Table("implementation", "cycles/s median (min–max)", "cycle p50", "cycle p99",
                        "hand-off p50", "hand-off p99 (min–max)", "cmds/cycle", "scripts/cycle",
                        "Redis CPU µs/cycle", "distlock ÷ this: cycles/s", "distlock ÷ this: hand-off p99")
                : new Table("implementation", "cycles/s median (min–max)", "cycle p50", "cycle p99 (min–max)",
                        "cmds/cycle", "scripts/cycle", "Redis CPU µs/cycle", "distlock ÷ this: cycles/s");
        StringBuilder notes = new StringBuilder();
        measurements.forEach((implementation, m) -> {
            String throughputRatio = (distlock == null) ? Fmt.NONE
                    : Fmt.ratio(distlock.cyclesPerSecond().median() / m.cyclesPerSecond().median());
            if (this.hotKey) {
                String handOffRatio = (distlock == null) ? Fmt.NONE
                        : Fmt.ratio(distlock.handOffMicros(99).median() / m.handOffMicros(99).median());
                table.row(implementation.label(), Fmt.countRange(m.cyclesPerSecond()),
                        Fmt.micros(m.cycleLatencyMicros(50).median()), Fmt.micros(m.cycleLatencyMicros(99).median()),
                        Fmt.micros(m.handOffMicros(50).median()), Fmt.microsRange(m.handOffMicros(99)),
                        Fmt.decimal(m.commandsPerCycle()), Fmt.decimal(m.scriptCallsPerCycle()),
                        Fmt.decimal(m.redisCpuMicrosPerCycle()), throughputRatio, handOffRatio);
            }
            else {
                table.row(implementation.label(), Fmt.countRange(m.cyclesPerSecond()),
                        Fmt.micros(m.cycleLatencyMicros(50).median()), Fmt.microsRange(m.cycleLatencyMicros(99)),
                        Fmt.decimal(m.commandsPerCycle()), Fmt.decimal(m.scriptCallsPerCycle()),
                        Fmt.decimal(m.redisCpuMicrosPerCycle()), throughputRatio);
            }
            notes.append(Notes.commandMix(implementation, m));
            notes.append(Notes.problems(implementation, m));
        });
        StringBuilder out = new StringBuilder(table.render());
        out.append('\n').append(notes);
        if (!traces.isEmpty()) {
            out.append("\nOne uncontended cycle as MONITOR sees it (requests the client sent; commands their scripts ran"
                    + " inside Redis):\n\n");
            traces.forEach((implementation, trace) -> out.append("- ")
                .append(implementation.label())
                .append(": ")
                .append(trace)
                .append('\n'));
        }
        return out.toString();
    }
}
