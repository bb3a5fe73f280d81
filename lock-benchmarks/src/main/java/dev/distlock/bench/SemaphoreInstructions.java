package dev.distlock.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.SemaphoreClient;
import dev.distlock.bench.redis.RedisProbe;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Redis's instructions per permit cycle of a leased semaphore of 5 (scenario 11's: distlock's
 * {@code withPermits(5)} beside Redisson's {@code RPermitExpirableSemaphore}), counted as {@link CycleInstructions}
 * counts a lock cycle: each shape runs its cycles once to warm up, then again between {@code callgrind_control -z} and
 * {@code -d}; beside it the commands Redis ran per cycle (INFO commandstats, the scripts' own commands and
 * {@code EVALSHA} included). The shapes:
 * <ul>
 * <li>one thread alone on a semaphore: every grant finds no permit counted, every release gives back the last;</li>
 * <li>one thread beside 3 permits held (the state a grant of scenario 11's four semaphores, 4 threads each, mostly
 * finds): the grant and the release each work on a semaphore that other holders keep.</li>
 * </ul>
 * One thread only: scenario 11's 16 threads add refusals, waiting and wake-ups whose number follows the threads'
 * timing, and under valgrind they run into distlock's 2 s lock call timeout. One semaphore or four makes no
 * difference to one thread's cycle; what the four semaphores' grants find (others holding) is the second shape.
 * Each shape starts on an emptied Redis and counts for well under distlock's token retention (31 s here), so that
 * no released holder's mark expires inside a counted window: the count leaves out the expiry of the one key per
 * cycle that distlock leaves behind for its retry window (a released holder's mark). The permits are held with a
 * 10-minute lease (distlock's watchdog lease, Redisson's fixed lease), so that no
 * renewal falls into a counted window; the lease's length changes no script's path.
 */
final class SemaphoreInstructions {

    private static final Duration LEASE = Duration.ofMinutes(10);

    private static final List<Implementation> IMPLEMENTATIONS = List.of(Implementation.DISTLOCK,
            Implementation.REDISSON);

    private static final List<Shape> SHAPES = List.of(new Shape("alone on its semaphore", 0),
            new Shape("beside 3 permits held", 3));

    private SemaphoreInstructions() {
    }

    /** One counted shape: one thread's cycles on one semaphore while {@code held} other permits are held. */
    record Shape(String label, int held) {
    }

    /** One shape's count of one implementation. */
    record Count(long instructionsPerCycle, double commandsPerCycle, String commands) {
    }

    /** Counts every shape of both implementations; returns the rows per shape. */
    static Map<Shape, Map<Implementation, Count>> count(Process redis, Path dumps, int port, int cycles)
            throws Exception {
        Map<Shape, Map<Implementation, Count>> counts = new LinkedHashMap<>();
        RedisClient probeClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> probe = probeClient.connect()) {
            for (Shape shape : SHAPES) {
                for (Implementation implementation : IMPLEMENTATIONS) {
                    Count count = count(redis, dumps, port, probe, implementation, shape, cycles);
                    counts.computeIfAbsent(shape, any -> new LinkedHashMap<>()).put(implementation, count);
                    System.err.printf(Locale.ROOT, "%s, %s: %,d instructions, %.1f commands per permit cycle (%s)%n",
                            shape.label(), implementation.label(), count.instructionsPerCycle(),
                            count.commandsPerCycle(), count.commands());
                }
            }
        }
        finally {
            probeClient.shutdown();
        }
        return counts;
    }

    private static Count count(Process redis, Path dumps, int port, StatefulRedisConnection<String, String> probe,
            Implementation implementation, Shape shape, int cycles) throws Exception {
        String key = "sem-instructions:" + shape.held();
        probe.sync().flushall(); // no expiry of an earlier shape's keys falls into this one's window
        try (SemaphoreClient client = open(implementation, new ClientSettings(port, LEASE, Duration.ofSeconds(60)))) {
            client.prepare(key);
            List<SemaphoreClient.Permit> held = new ArrayList<>();
            for (int i = 0; i < shape.held(); i++) {
                held.add(client.acquire(key));
            }
            run(client, key, cycles);
            Map<String, Long> before = calls(probe);
            CycleInstructions.callgrind(redis, "-z");
            long started = System.nanoTime();
            run(client, key, cycles);
            CycleInstructions.callgrind(redis, "-d");
            long seconds = Duration.ofNanos(System.nanoTime() - started).toSeconds();
            long instructions = CycleInstructions.newestTotal(dumps);
            Map<String, Long> after = calls(probe);
            for (SemaphoreClient.Permit permit : held) {
                permit.release();
            }
            Map<String, Double> perCycle = new LinkedHashMap<>();
            after.forEach((command, total) -> {
                long delta = total - before.getOrDefault(command, 0L);
                if (delta > 0) {
                    perCycle.put(command, (double) delta / cycles);
                }
            });
            double commands = perCycle.values().stream().mapToDouble(Double::doubleValue).sum();
            String byCommand = perCycle.entrySet()
                .stream()
                .sorted(Map.Entry.<String, Double>comparingByValue(Comparator.reverseOrder()))
                .map(entry -> String.format(Locale.ROOT, "%s %.2f", entry.getKey(), entry.getValue()))
                .collect(Collectors.joining(", "));
            return new Count(instructions / cycles, commands, byCommand + "; " + seconds + " s counted");
        }
    }

    private static void run(SemaphoreClient client, String key, int cycles) throws Exception {
        for (int i = 0; i < cycles; i++) {
            client.acquire(key).release();
        }
    }

    /** Every command's calls so far (INFO commandstats, the harness's own left out). */
    private static Map<String, Long> calls(StatefulRedisConnection<String, String> probe) {
        return RedisProbe.commandStats(probe.sync().info("commandstats"), "calls");
    }

    /** Opens a client, retrying while Redis (slow under valgrind) is still starting. */
    private static SemaphoreClient open(Implementation implementation, ClientSettings settings) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return SemaphoreClient.open(implementation, settings);
            }
            catch (RuntimeException ex) {
                if (System.nanoTime() > deadline) {
                    throw ex;
                }
                Thread.sleep(500);
            }
        }
    }

    static String render(int cycles, Map<Shape, Map<Implementation, Count>> counts) {
        List<String> lines = new ArrayList<>();
        lines.add("Redis instructions per permit cycle of a semaphore of 5 (valgrind callgrind, user space; " + cycles
                + " counted cycles per shape; commands: INFO commandstats, EVALSHA and the scripts' own included):");
        lines.add("");
        lines.add("| shape | implementation | instructions per cycle | ÷ Redisson's | commands per cycle |");
        lines.add("| --- | --- | --- | --- | --- |");
        counts.forEach((shape, row) -> {
            Count redisson = row.get(Implementation.REDISSON);
            row.forEach((implementation, count) -> lines.add(String.format(Locale.ROOT,
                    "| %s | %s | %,d | %s | %.1f |", shape.label(), implementation.label(),
                    count.instructionsPerCycle(), (redisson != null && redisson.instructionsPerCycle() > 0)
                            ? String.format(Locale.ROOT, "%.2f×",
                                    (double) count.instructionsPerCycle() / redisson.instructionsPerCycle())
                            : "",
                    count.commandsPerCycle())));
        });
        return String.join("\n", lines) + "\n";
    }
}
