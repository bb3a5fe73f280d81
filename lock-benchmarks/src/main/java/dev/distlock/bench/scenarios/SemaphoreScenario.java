package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.SemaphoreClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.Closer;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.WorkerPool;

/**
 * Scenario 11: leased semaphores of 5 permits, distlock's watchdog-renewed permits beside Redisson's
 * {@code RPermitExpirableSemaphore}: 16 threads on one semaphore, then 16 threads over 4, taking turns iteration by
 * iteration as in the timed lock scenarios; then Redis memory per semaphore and per held permit
 * ({@link SemaphoreMemory}). The report is {@link SemaphoreReport}'s.
 */
final class SemaphoreScenario implements Scenario {

    static final int THREADS = 16;

    /** How the threads spread: all on one semaphore (11 of them waiting at any time), or 4 to each of 4 (none). */
    enum Shape {

        ONE("1 semaphore", 1), FOUR("4 semaphores", 4);

        final String label;

        final int semaphores;

        Shape(String label, int semaphores) {
            this.label = label;
            this.semaphores = semaphores;
        }
    }

    @Override
    public String id() {
        return "11";
    }

    @Override
    public String title() {
        return "Leased semaphore of 5 permits: distlock beside Redisson's RPermitExpirableSemaphore";
    }

    @Override
    public String description() {
        return """
                %d threads of one client take one permit of a semaphore of %d, release it at once and go again \
                (cycle: the acquire call to the release's return), first all on one semaphore, where up to 11 wait \
                for a permit and a release has waiters to wake, then 4 to each of 4 semaphores, where no one waits. \
                distlock: `LockOptions.defaults().withPermits(5)`, no fixed lease (the watchdog renews each permit, \
                on the run's watchdog lease), waiting up to the run's maximum wait. Redisson: \
                `RPermitExpirableSemaphore`, `trySetPermits(5)` once per key before the load (it has no limit \
                per call), `tryAcquire(wait, lease, unit)` with a fixed lease as long as distlock's watchdog lease \
                (it has no watchdog), `release(permitId)`. The implementations take turns iteration by iteration, \
                as in the timed lock scenarios. Per semaphore this JVM counts its holders (up right after an \
                acquire returns, down right before the release): a count above 5 is reported as an overlap. Then, \
                one implementation after the other on an emptied server, Redis memory of %,d semaphores made \
                ready with one permit held each, then with all 5 held, then right after every release (the sum of \
                every key's `MEMORY USAGE` plus the keyspace's dictionaries; `used_memory` as a cross-check), with \
                a lease of %d minutes so that nothing expires or is renewed meanwhile. \
                Spring Integration and the raw floor have no semaphore and are left out.""".formatted(THREADS,
                SemaphoreClient.LIMIT, SemaphoreMemory.SEMAPHORES, SemaphoreMemory.LEASE.toMinutes());
    }

    @Override
    public boolean covers(Implementation implementation) {
        return SemaphoreClient.supports(implementation);
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        Duration load = config.timedLoad().plusSeconds(1).multipliedBy(Shape.values().length);
        return load.plusSeconds(15).multipliedBy(implementations.size()).plusSeconds(5);
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        context.flush();
        context.progress("Scenario 11: leased semaphores of %d permits", SemaphoreClient.LIMIT);
        Duration timeout = context.config().iteration().plus(context.config().maxWait()).plusSeconds(30);
        Map<Shape, Map<Implementation, Measurement>> measured = new LinkedHashMap<>();
        try (Closer closer = new Closer()) {
            Map<Implementation, SemaphoreClient> clients = new LinkedHashMap<>();
            Map<Implementation, WorkerPool> pools = new LinkedHashMap<>();
            for (Implementation implementation : implementations) {
                clients.put(implementation, closer.add(SemaphoreClient.open(implementation, context.settings())));
                pools.put(implementation, closer.add(new WorkerPool(THREADS, "bench-s11")));
            }
            for (Shape shape : Shape.values()) {
                context.progress(" %d threads on %s", THREADS, shape.label);
                Map<Implementation, BenchContext.Iteration> iterations = new LinkedHashMap<>();
                for (Implementation implementation : implementations) {
                    SemaphoreLoad load = new SemaphoreLoad("s11:" + shape.semaphores + ":", shape.semaphores,
                            Duration.ZERO);
                    SemaphoreClient client = clients.get(implementation);
                    load.keys().forEach(client::prepare);
                    WorkerPool pool = pools.get(implementation);
                    iterations.put(implementation, length -> load.run(client, pool, length, timeout));
                }
                measured.put(shape, context.measure(iterations));
            }
        }
        Map<Implementation, SemaphoreMemory.Result> memory = new LinkedHashMap<>();
        for (Implementation implementation : implementations) {
            context.flush();
            context.progress(" %s: memory of %,d semaphores", implementation.label(), SemaphoreMemory.SEMAPHORES);
            SemaphoreMemory.Result result = SemaphoreMemory.measure(implementation, context);
            context.progress("  %-20s %.0f B per semaphore with one permit held, %.0f B per further permit",
                    implementation.label(), result.bytesPerSemaphore(), result.bytesPerFurtherPermit());
            memory.put(implementation, result);
        }
        SemaphoreReport report = new SemaphoreReport(measured, memory);
        return new ScenarioReport(this, report.markdown(), measured.get(Shape.ONE), Map.of(), report.chart());
    }
}
