package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.Closer;
import dev.distlock.bench.harness.LoadResult;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.ThreadResult;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;

/**
 * Scenario 5: 10 threads of one client wait for a key that another client (its own connections, as another process
 * would have) holds; how long after that client's release the first waiter has the lock.
 */
final class WaitersScenario implements Scenario {

    private static final int WAITERS = 10;

    private static final Duration SETTLE = Duration.ofMillis(20);

    @Override
    public String id() {
        return "5";
    }

    @Override
    public String title() {
        return WAITERS + " waiters on a key held by another client";
    }

    @Override
    public String description() {
        return """
                Rounds: client B (a second client of the same implementation, with its own connections) takes the \
                key; %d threads of client A call acquire on it; once all have called it, B waits %d ms more so they \
                are all parked, notes System.nanoTime() and releases. Hand-off latency is the time from just before \
                that release to the first waiter's acquire returning, so every sample crosses clients through Redis. \
                The waiters then take and release the key in turn (not timed) and the next round starts. cycles/s \
                counts all lock cycles of the rounds (%d per round) and is set by the fixed %d ms settle, so it \
                mostly says how fast the queue drains.""".formatted(WAITERS, SETTLE.toMillis(), WAITERS + 1,
                SETTLE.toMillis());
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        return config.timedLoad().plusSeconds(2).multipliedBy(implementations.size()).plusSeconds(5);
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        context.flush();
        context.progress("Scenario 5: %s", title());
        StringBuilder diagnostics = new StringBuilder();
        Map<Implementation, Measurement> measurements;
        try (Closer closer = new Closer()) {
            Map<Implementation, List<LockClient>> clients = new LinkedHashMap<>();
            Map<Implementation, BenchContext.Iteration> iterations = new LinkedHashMap<>();
            for (Implementation implementation : implementations) {
                LockClient waiters = closer.add(context.open(implementation));
                LockClient holder = closer.add(context.open(implementation));
                WorkerPool pool = closer.add(new WorkerPool(WAITERS, "bench-s5"));
                clients.put(implementation, List.of(waiters, holder));
                iterations.put(implementation,
                        length -> iteration(holder, waiters, pool, length, context.config().maxWait()));
            }
            measurements = context.measure(iterations);
            clients.forEach((implementation, both) -> both
                .forEach(client -> diagnostics.append(Notes.diagnostics(implementation, client))));
        }
        return new ScenarioReport(this, render(measurements) + diagnostics, measurements, Map.of());
    }

    private static LoadResult iteration(LockClient holder, LockClient waiters, WorkerPool pool, Duration length,
            Duration maxWait) throws Exception {
        String key = "s5:contended";
        ThreadResult holderResult = new ThreadResult();
        List<ThreadResult> all = new ArrayList<>();
        all.add(holderResult);
        long start = System.nanoTime();
        long deadline = start + length.toNanos();
        while (System.nanoTime() - deadline < 0) {
            all.addAll(round(key, holder, waiters, pool, maxWait, holderResult));
        }
        holderResult.finished();
        return LoadResult.merge(all, start);
    }

    /** One round; the holder's work runs on the calling thread, so thread-bound locks are released by their owner. */
    private static List<ThreadResult> round(String key, LockClient holder, LockClient waiters, WorkerPool pool,
            Duration maxWait, ThreadResult holderResult) throws Exception {
        LockClient.Held held = holder.acquire(key);
        CountDownLatch arrived = new CountDownLatch(WAITERS);
        AtomicBoolean first = new AtomicBoolean();
        AtomicLong releasedAt = new AtomicLong();
        WorkerPool.Batch<ThreadResult> waiting = pool.start(WAITERS,
                index -> waitOnce(key, waiters, arrived, first, releasedAt));
        try {
            if (!arrived.await(maxWait.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("waiters did not start");
            }
            Thread.sleep(SETTLE.toMillis());
        }
        finally {
            releasedAt.set(System.nanoTime());
            held.release();
            holderResult.uncountedLatencyCycle();
        }
        return waiting.await(maxWait.plusSeconds(30));
    }

    private static ThreadResult waitOnce(String key, LockClient waiters, CountDownLatch arrived, AtomicBoolean first,
            AtomicLong releasedAt) {
        ThreadResult result = new ThreadResult();
        arrived.countDown();
        try {
            LockClient.Held held = waiters.acquire(key);
            long acquired = System.nanoTime();
            if (first.compareAndSet(false, true)) {
                long released = releasedAt.get();
                if (released == 0) {
                    result.violation(); // acquired while the holder still had it
                }
                else {
                    result.handOff(acquired - released);
                }
            }
            held.release();
            result.uncountedLatencyCycle();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (Exception ex) {
            result.error(ex);
        }
        result.finished();
        return result;
    }

    private static String render(Map<Implementation, Measurement> measurements) {
        Measurement distlock = measurements.get(Implementation.DISTLOCK);
        Table table = new Table("implementation", "hand-off p50 (min–max)", "hand-off p99 (min–max)", "samples",
                "cycles/s", "cmds/cycle", "scripts/cycle", "Redis CPU µs/cycle", "distlock ÷ this: hand-off p50",
                "distlock ÷ this: hand-off p99");
        StringBuilder notes = new StringBuilder();
        measurements.forEach((implementation, m) -> {
            table.row(implementation.label(), Fmt.microsRange(m.handOffMicros(50)),
                    Fmt.microsRange(m.handOffMicros(99)), Fmt.count(m.handOffCount()),
                    Fmt.count(m.cyclesPerSecond().median()), Fmt.decimal(m.commandsPerCycle()),
                    Fmt.decimal(m.scriptCallsPerCycle()), Fmt.decimal(m.redisCpuMicrosPerCycle()),
                    (distlock == null) ? Fmt.NONE
                            : Fmt.ratio(distlock.handOffMicros(50).median() / m.handOffMicros(50).median()),
                    (distlock == null) ? Fmt.NONE
                            : Fmt.ratio(distlock.handOffMicros(99).median() / m.handOffMicros(99).median()));
            notes.append(Notes.commandMix(implementation, m));
            notes.append(Notes.problems(implementation, m));
        });
        return table.render() + "\n" + notes;
    }
}
