package dev.distlock.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.distlock.bench.SemaphoreWindow.Result;
import dev.distlock.bench.SemaphoreWindow.Shape;
import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import io.lettuce.core.RedisClient;

/**
 * Redis CPU per permit cycle of three semaphore script sets, timed and paired on one machine (issue 50): (a) distlock's
 * sem-acquire.lua / sem-release.lua as its client sends them today, (b) the layout-2 sketch of docs/benchmarks.md ("A
 * layout 2, priced": layouts/sem2-acquire.lua, sem2-release.lua, not lock-core's), (c) Redisson 4.7's
 * RPermitExpirableSemaphore tryAcquire(wait, lease) and release. The texts, keys and arguments of (a) and (c) are read
 * at run time off a redis-server under MONITOR while a real client of each runs one permit cycle
 * ({@link SemaphoreCapture}); (b)'s keys and arguments are made from (a)'s. All three are then sent by the same driver:
 * 16 caller threads, one EVALSHA acquire and one EVALSHA release per cycle over Lettuce (one shared connection unless
 * told otherwise), a refused acquire retried after a short pause ({@link SemaphoreWindow}).
 *
 * <p>Each window runs on a fresh Debian {@code /usr/bin/redis-server} (jemalloc, 127.0.0.1, no persistence): a warm-up,
 * then {@code CONFIG RESETSTAT} and {@code INFO cpu}, then the measured window, bounded by time and by a cycle count,
 * then {@code INFO cpu} and {@code INFO commandstats} again. Rounds alternate the sets' order (a b c, then c b a, ...),
 * and each ratio is taken within a round. Never run by the tests. Run (after {@code mvn -B -ntp -q -pl lock-benchmarks
 * -am package -DskipTests}):
 *
 * <pre>
 * java [-Dresp=2] -cp lock-benchmarks/target/lock-benchmarks.jar dev.distlock.bench.SemaphoreLayoutCost \
 *     [rounds=4] [window seconds=5] [shapes=four,one] [connections=1|16|scenario] [out.md]
 * </pre>
 */
public final class SemaphoreLayoutCost {

    /** Each window stops at this many completed cycles if its time has not run out first. */
    static final long MAX_CYCLES = Long.getLong("maxCycles", 2_000_000L);

    static final Duration WARM_UP = Duration.ofMillis(Long.getLong("warmUpMillis", 1_500L));

    private SemaphoreLayoutCost() {
    }

    /**
     * The Lettuce connections the callers share: a number for every set, or {@code scenario} for the connections the
     * real clients of scenario 11 use: one for distlock's scripts (its one shared connection), one per caller for
     * Redisson's (a pool hands each waiting call a connection of its own).
     */
    static int connections(String spec, boolean redisson) {
        if (spec.equals("scenario")) {
            return redisson ? SemaphoreWindow.CALLERS : 1;
        }
        int connections = Integer.parseInt(spec);
        if (connections < 1 || connections > SemaphoreWindow.CALLERS) {
            throw new IllegalArgumentException("connections: 1.." + SemaphoreWindow.CALLERS + " or scenario");
        }
        return connections;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        Duration window = Duration.ofMillis(Math.round(1000 * (args.length > 1 ? Double.parseDouble(args[1]) : 5)));
        List<Shape> shapes = new ArrayList<>();
        for (String shape : (args.length > 2 ? args[2] : "four,one").split(",")) {
            shapes.add(Shape.valueOf(shape.trim().toUpperCase(Locale.ROOT)));
        }
        String connections = args.length > 3 ? args[3] : "1";
        Path out = args.length > 4 ? Path.of(args[4]) : null;
        if (rounds < 1 || rounds > 40 || window.isNegative() || window.toSeconds() > 120) {
            throw new IllegalArgumentException("rounds 1..40, window up to 120 s");
        }
        connections(connections, false); // checks it

        List<SemaphoreScriptSet> sets;
        try (SemaphoreWindow.Server server = SemaphoreWindow.Server.start()) {
            // scenario 11's quick runs: a 3 s watchdog lease (Redisson's fixed lease), 30 s maximum wait
            Map<Implementation, SemaphoreCapture.Captured> captured = SemaphoreCapture.capture(server.port(),
                    new ClientSettings(server.port(), Duration.ofSeconds(3), Duration.ofSeconds(30)));
            SemaphoreCapture.Captured distlock = captured.get(Implementation.DISTLOCK);
            sets = List.of(SemaphoreScriptSet.distlock(distlock), SemaphoreScriptSet.layout2(distlock),
                    SemaphoreScriptSet.redisson(captured.get(Implementation.REDISSON)));
        }
        for (SemaphoreScriptSet set : sets) {
            System.err.println(set.describe());
            System.err.println(set.slots());
        }
        SemaphoreScriptSet redisson = sets.get(2);
        for (SemaphoreCapture.Call setup : redisson.setup) {
            System.err.println("Redisson setup script: " + setup.text().replace('\n', ' '));
        }
        System.err.println("Redisson acquire script: " + redisson.acquireText.replace('\n', ' '));
        System.err.println("Redisson release script: " + redisson.releaseText.replace('\n', ' '));

        RedisClient client = RedisClient.create();
        if ("2".equals(System.getProperty("resp"))) { // Redisson speaks RESP2; Lettuce 7 says HELLO 3 unless told
            client.setOptions(io.lettuce.core.ClientOptions.builder()
                .protocolVersion(io.lettuce.core.protocol.ProtocolVersion.RESP2)
                .build());
        }
        Map<Shape, List<Map<SemaphoreScriptSet, Result>>> results = new LinkedHashMap<>();
        try {
            System.err.println("JVM warm-up: one short window per set");
            for (SemaphoreScriptSet set : sets) {
                SemaphoreWindow.run(client, set, shapes.get(0), connections(connections, set.answersToken),
                        Duration.ofSeconds(2));
            }
            for (int round = 0; round < rounds; round++) {
                List<SemaphoreScriptSet> order = new ArrayList<>(sets);
                if (round % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                for (Shape shape : shapes) {
                    Map<SemaphoreScriptSet, Result> row = new LinkedHashMap<>();
                    for (SemaphoreScriptSet set : order) {
                        Result result = SemaphoreWindow.run(client, set, shape,
                                connections(connections, set.answersToken), window);
                        System.err.printf(Locale.ROOT, "round %d, %s, %s: %s%n", round + 1, shape.label, set.label,
                                result.describe());
                        row.put(set, result);
                    }
                    results.computeIfAbsent(shape, any -> new ArrayList<>()).add(row);
                }
            }
        }
        finally {
            client.shutdown();
        }
        String report = SemaphoreLayoutReport.render(sets, results, rounds, window, connections);
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report);
        }
    }
}
