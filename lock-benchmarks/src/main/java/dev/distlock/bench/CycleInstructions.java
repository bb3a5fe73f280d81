package dev.distlock.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.redis.RedisBuild;
import dev.distlock.bench.redis.RedisProbe;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Redis's own instructions per lock cycle of each blocking implementation, counted by valgrind's callgrind: one
 * thread, one key, acquire and release, on Debian's redis-server run under {@code valgrind --tool=callgrind}. Where
 * {@code INFO cpu} moves by ±10% between runs on a shared machine, this count repeats within 1–3%, so it judges a
 * change to the scripts (or to what a client sends) that the timed scenarios cannot resolve. It counts what Redis runs
 * in user space: parsing the requests, the scripts and their commands, the replies; not the kernel's work for the
 * socket calls, which weighs more at one thread than under load, nor cache misses. Each implementation runs N
 * cycles to warm up, then N counted between {@code callgrind_control -z} and {@code -d}. Then the watchdogs that
 * renew in batches (distlock's, Redisson's): instructions per renewed lock (see {@link #renewal}). Between the two,
 * the permit cycles of a semaphore of 5, distlock's beside Redisson's {@code RPermitExpirableSemaphore}
 * ({@link SemaphoreInstructions}).
 *
 * <p>Run: {@code java -cp lock-benchmarks/target/lock-benchmarks.jar dev.distlock.bench.CycleInstructions [cycles]
 * [out.md]} (default 2,000 cycles; about two minutes; {@code java -DheldLocks=10000 ...} counts renewal at 10,000
 * held locks; {@code -Dcounts=semaphores} runs only the semaphore count, any of {@code locks,semaphores,renewal}
 * separated by commas). Needs valgrind (Debian's package) and /usr/bin/redis-server.
 */
public final class CycleInstructions {

    private static final List<Implementation> IMPLEMENTATIONS = List.of(Implementation.RAW, Implementation.FENCED,
            Implementation.DISTLOCK, Implementation.REDISSON, Implementation.SPRING_INTEGRATION);

    /** The implementations whose watchdogs renew in batches (Spring Integration renews each lock on its own). */
    private static final List<Implementation> RENEWING = List.of(Implementation.DISTLOCK, Implementation.REDISSON);

    /** Locks held in the renewal count: 1,000, or the system property {@code heldLocks} (e.g. 10,000). */
    static final int HELD_LOCKS = Integer.getInteger("heldLocks", 1_000);

    /** The watchdog lease of the renewal count: both renew every third of it. */
    private static final Duration RENEWAL_LEASE = Duration.ofSeconds(6);

    private static final Duration RENEWAL_WINDOW = Duration.ofSeconds(4);

    /** The counts to run: {@code locks}, {@code semaphores}, {@code renewal} (system property {@code counts}). */
    private static final List<String> COUNTS = List.of(System.getProperty("counts", "locks,semaphores,renewal")
        .split(","));

    private CycleInstructions() {
    }

    public static void main(String[] args) throws Exception {
        int cycles = (args.length > 0) ? Integer.parseInt(args[0]) : 2_000;
        Path out = (args.length > 1) ? Path.of(args[1]) : null;
        if (!Files.isExecutable(RedisBuild.DEBIAN) || !onPath("valgrind") || !onPath("callgrind_control")) {
            System.err.println("needs " + RedisBuild.DEBIAN + ", valgrind and callgrind_control on this machine");
            System.exit(2);
        }
        Path dumps = Files.createTempDirectory("cycle-instructions");
        int port = freePort();
        Process redis = new ProcessBuilder("valgrind", "--tool=callgrind", "--callgrind-out-file=" + dumps.resolve("cg"),
                RedisBuild.DEBIAN.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no")
            .redirectErrorStream(true)
            .redirectOutput(dumps.resolve("redis.log").toFile())
            .start();
        Map<Implementation, Long> perCycle = new LinkedHashMap<>();
        Map<Implementation, long[]> perRenewal = new LinkedHashMap<>();
        Map<SemaphoreInstructions.Shape, Map<Implementation, SemaphoreInstructions.Count>> perPermitCycle = Map.of();
        try {
            ClientSettings settings = new ClientSettings(port, Duration.ofSeconds(30), Duration.ofSeconds(30));
            for (Implementation implementation : COUNTS.contains("locks") ? IMPLEMENTATIONS
                    : List.<Implementation>of()) {
                try (LockClient client = open(implementation, settings)) {
                    String key = "instructions-" + implementation.label();
                    run(client, key, cycles);
                    callgrind(redis, "-z");
                    run(client, key, cycles);
                    callgrind(redis, "-d");
                    perCycle.put(implementation, newestTotal(dumps) / cycles);
                }
                System.err.printf(Locale.ROOT, "%s: %,d instructions per cycle%n", implementation.label(),
                        perCycle.get(implementation));
            }
            if (COUNTS.contains("semaphores")) {
                perPermitCycle = SemaphoreInstructions.count(redis, dumps, port, cycles);
            }
            for (Implementation implementation : COUNTS.contains("renewal") ? RENEWING : List.<Implementation>of()) {
                perRenewal.put(implementation, renewal(redis, dumps, port, implementation));
            }
        }
        finally {
            redis.destroy();
            redis.waitFor(30, TimeUnit.SECONDS);
        }
        List<String> parts = new ArrayList<>();
        if (!perCycle.isEmpty()) {
            parts.add(render(cycles, perCycle));
        }
        if (!perPermitCycle.isEmpty()) {
            parts.add(SemaphoreInstructions.render(cycles, perPermitCycle));
        }
        if (!perRenewal.isEmpty()) {
            parts.add(renderRenewal(perRenewal));
        }
        String report = String.join("\n", parts);
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report, StandardCharsets.UTF_8);
        }
    }

    /**
     * Instructions per renewed lock of one implementation's watchdog: {@link #HELD_LOCKS} locks held with
     * {@link #RENEWAL_LEASE} (renewed every third of it, in batches of 100 by both), counted over
     * {@link #RENEWAL_WINDOW} less the same window with the client open and nothing held, over the renewal scripts'
     * {@code PEXPIRE} calls (one per renewed lock).
     * Returns {renewals, instructions per renewal}.
     */
    private static long[] renewal(Process redis, Path dumps, int port, Implementation implementation)
            throws Exception {
        RedisClient probeClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> probe = probeClient.connect();
                LockClient client = open(implementation,
                        new ClientSettings(port, RENEWAL_LEASE, Duration.ofSeconds(30)))) {
            callgrind(redis, "-z");
            Thread.sleep(RENEWAL_WINDOW.toMillis());
            callgrind(redis, "-d");
            long idle = newestTotal(dumps);
            List<LockClient.Held> held = new ArrayList<>();
            for (int i = 0; i < HELD_LOCKS; i++) {
                held.add(client.acquire("renewal-" + implementation.label() + "-" + i));
            }
            Thread.sleep(RENEWAL_LEASE.toMillis() / 3 + 500); // past the first renewal period
            long before = pexpireCalls(probe);
            callgrind(redis, "-z");
            Thread.sleep(RENEWAL_WINDOW.toMillis());
            callgrind(redis, "-d");
            long renewals = pexpireCalls(probe) - before;
            long busy = newestTotal(dumps);
            for (LockClient.Held lock : held) {
                lock.release();
            }
            if (renewals <= 0) {
                throw new IllegalStateException(implementation.label() + " renewed nothing in the window");
            }
            System.err.printf(Locale.ROOT, "%s: %,d renewals, %,d instructions per renewed lock%n",
                    implementation.label(), renewals, (busy - idle) / renewals);
            return new long[] {renewals, (busy - idle) / renewals};
        }
        finally {
            probeClient.shutdown();
        }
    }

    /**
     * The {@code PEXPIRE} and {@code PEXPIREAT} calls Redis has run so far, those inside scripts included (INFO
     * commandstats): one per renewed lock (distlock's renew.lua extends with PEXPIREAT on Redis 7).
     */
    private static long pexpireCalls(StatefulRedisConnection<String, String> probe) {
        Map<String, Long> calls = RedisProbe.commandStats(probe.sync().info("commandstats"), "calls");
        return calls.getOrDefault("pexpire", 0L) + calls.getOrDefault("pexpireat", 0L);
    }

    /** Opens a client, retrying while Redis (slow under valgrind) is still starting. */
    private static LockClient open(Implementation implementation, ClientSettings settings) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return implementation.open(settings);
            }
            catch (RuntimeException ex) {
                if (System.nanoTime() > deadline) {
                    throw ex;
                }
                Thread.sleep(500);
            }
        }
    }

    private static void run(LockClient client, String key, int cycles) throws Exception {
        for (int i = 0; i < cycles; i++) {
            client.acquire(key).release();
        }
    }

    static void callgrind(Process redis, String command) throws IOException, InterruptedException {
        Process control = new ProcessBuilder("callgrind_control", command, Long.toString(redis.pid()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
        if (!control.waitFor(60, TimeUnit.SECONDS) || control.exitValue() != 0) {
            throw new IllegalStateException("callgrind_control " + command + " failed");
        }
    }

    /** The instruction total of the newest dump ({@code totals:} or {@code summary:} line). */
    static long newestTotal(Path dumps) throws IOException {
        Path newest;
        try (Stream<Path> files = Files.list(dumps)) {
            newest = files.filter(file -> file.getFileName().toString().startsWith("cg"))
                .max(Comparator.comparingLong(file -> file.toFile().lastModified()))
                .orElseThrow(() -> new IllegalStateException("callgrind wrote no dump in " + dumps));
        }
        for (String line : Files.readAllLines(newest, StandardCharsets.UTF_8)) {
            if (line.startsWith("totals:") || line.startsWith("summary:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim().split("\\s+")[0]);
            }
        }
        throw new IllegalStateException("no totals in " + newest);
    }

    private static String render(int cycles, Map<Implementation, Long> perCycle) {
        List<String> lines = new ArrayList<>();
        lines.add("Redis instructions per lock cycle (valgrind callgrind, user space; one thread, one key, " + cycles
                + " counted cycles each):");
        lines.add("");
        lines.add("| implementation | instructions per cycle | ÷ raw floor |");
        lines.add("| --- | --- | --- |");
        long floor = perCycle.getOrDefault(Implementation.RAW, 0L);
        perCycle.forEach((implementation, count) -> lines.add(String.format(Locale.ROOT, "| %s | %,d | %s |",
                implementation.label(), count, (floor > 0) ? String.format(Locale.ROOT, "%.2f×", (double) count / floor)
                        : "")));
        return String.join("\n", lines) + "\n";
    }

    private static String renderRenewal(Map<Implementation, long[]> perRenewal) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "Redis instructions per renewed lock (%,d locks held, %d s lease renewed "
                + "every %d s in batches of 100; a %d s window less the same window with nothing held):", HELD_LOCKS,
                RENEWAL_LEASE.toSeconds(), RENEWAL_LEASE.toSeconds() / 3, RENEWAL_WINDOW.toSeconds()));
        lines.add("");
        lines.add("| implementation | renewals counted | instructions per renewed lock | ÷ Redisson's |");
        lines.add("| --- | --- | --- | --- |");
        long[] redisson = perRenewal.get(Implementation.REDISSON);
        perRenewal.forEach((implementation, counts) -> lines.add(String.format(Locale.ROOT,
                "| %s | %,d | %,d | %s |", implementation.label(), counts[0], counts[1],
                (redisson != null && redisson[1] > 0)
                        ? String.format(Locale.ROOT, "%.2f×", (double) counts[1] / redisson[1]) : "")));
        return String.join("\n", lines) + "\n";
    }

    private static boolean onPath(String command) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
            .anyMatch(directory -> Files.isExecutable(Path.of(directory, command)));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
