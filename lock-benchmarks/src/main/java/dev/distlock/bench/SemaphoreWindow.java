package dev.distlock.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.bench.SemaphoreScriptSet.Template;
import dev.distlock.bench.redis.RedisProbe;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;

/**
 * One measured window of {@link SemaphoreLayoutCost}: a fresh redis-server, {@value #CALLERS} caller threads over the
 * shape's semaphores of 5 (caller i on semaphore i mod n), each cycle one EVALSHA acquire and, once granted, one
 * EVALSHA release; a refused acquire is retried after {@link #PAUSE}, the same for every set. A warm-up, then the
 * window, bounded by its length and by {@link SemaphoreLayoutCost#MAX_CYCLES}; Redis CPU and commands are read around
 * the window only.
 */
final class SemaphoreWindow {

    static final int CALLERS = 16;

    static final Duration PAUSE = Duration.ofMillis(1);

    /** A window fails after this many unexpected replies or errors. */
    private static final int MAX_ERRORS = 100;

    private SemaphoreWindow() {
    }

    /** Scenario 11's two shapes. */
    enum Shape {

        FOUR("4 semaphores", 4), ONE("1 semaphore", 1);

        final String label;

        final int semaphores;

        Shape(String label, int semaphores) {
            this.label = label;
            this.semaphores = semaphores;
        }
    }

    /**
     * A window's outcome: completed cycles, refused acquires, Redis CPU (process; main thread) and commands inside the
     * window, and its length.
     */
    record Result(long cycles, long refusals, long cpuMicros, long mainThreadMicros, Map<String, Long> calls,
            long reads, long nanos) {

        double cpuPerCycle() {
            return (double) this.cpuMicros / this.cycles;
        }

        double mainThreadPerCycle() {
            return (double) this.mainThreadMicros / this.cycles;
        }

        double commandsPerCycle() {
            return this.calls.values().stream().mapToLong(Long::longValue).sum() / (double) this.cycles;
        }

        /** Reads from client sockets per cycle (INFO stats total_reads_processed): how batched requests arrive. */
        double readsPerCycle() {
            return (double) this.reads / this.cycles;
        }

        double cyclesPerSecond() {
            return this.cycles * 1e9 / this.nanos;
        }

        String describe() {
            return String.format(Locale.ROOT,
                    "%,d cycles (%,.0f/s), %,d refused, Redis CPU %.2f µs/cycle (main thread %.2f), %.2f reads/cycle, "
                            + "%.2f commands/cycle %s",
                    this.cycles, cyclesPerSecond(), this.refusals, cpuPerCycle(), mainThreadPerCycle(), readsPerCycle(),
                    commandsPerCycle(), this.calls);
        }
    }

    /** A fresh Debian redis-server on a free port of 127.0.0.1, without persistence. */
    record Server(Process process, int port) implements AutoCloseable {

        static Server start() throws Exception {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Process process = new ProcessBuilder("/usr/bin/redis-server", "--port", Integer.toString(port), "--bind",
                    "127.0.0.1", "--save", "", "--appendonly", "no").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (true) {
                try (java.net.Socket probe = new java.net.Socket("127.0.0.1", port)) {
                    return new Server(process, port);
                }
                catch (IOException notYet) {
                    if (System.nanoTime() > deadline || !process.isAlive()) {
                        process.destroyForcibly();
                        throw new IllegalStateException("redis-server did not start on " + port, notYet);
                    }
                    Thread.sleep(50);
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            this.process.destroy();
            if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    static Result run(RedisClient client, SemaphoreScriptSet set, Shape shape, int connections, Duration window)
            throws Exception {
        try (Server server = Server.start()) {
            List<StatefulRedisConnection<String, String>> opened = new ArrayList<>();
            try {
                RedisURI uri = RedisURI.create("127.0.0.1", server.port());
                for (int i = 0; i < connections; i++) {
                    opened.add(client.connect(new StringCodec(SemaphoreCapture.BYTES), uri));
                }
                return measure(opened, set, shape, window);
            }
            finally {
                opened.forEach(StatefulRedisConnection::close);
            }
        }
    }

    private static Result measure(List<StatefulRedisConnection<String, String>> connections, SemaphoreScriptSet set,
            Shape shape, Duration window) throws Exception {
        RedisCommands<String, String> admin = connections.get(0).sync();
        String acquireSha = admin.scriptLoad(set.acquireText);
        String releaseSha = admin.scriptLoad(set.releaseText);
        List<Template[]> semaphores = new ArrayList<>();
        for (int i = 0; i < shape.semaphores; i++) {
            String name = "semlayout:" + shape.semaphores + ":" + i;
            semaphores.add(new Template[] { set.acquire.named(name), set.release.named(name) });
            if (set.graceKey != null) {
                admin.set(set.graceKey.replace(SemaphoreCapture.MARKER, name), "1");
            }
            for (SemaphoreCapture.Call setup : set.setup) {
                admin.eval(setup.text(), ScriptOutputType.OBJECT,
                        setup.keys().stream().map(key -> key.replace(SemaphoreCapture.MARKER, name))
                            .toArray(String[]::new),
                        setup.args().stream().map(arg -> arg.replace(SemaphoreCapture.MARKER, name))
                            .toArray(String[]::new));
            }
        }
        Phases phases = new Phases(System.nanoTime() + SemaphoreLayoutCost.WARM_UP.toNanos());
        List<Caller> callers = new ArrayList<>();
        AtomicLong holds = new AtomicLong();
        for (int i = 0; i < CALLERS; i++) {
            Template[] calls = semaphores.get(i % semaphores.size());
            callers.add(new Caller(connections.get(i % connections.size()).sync(), set, acquireSha, releaseSha,
                    calls[0], calls[1], phases, holds));
        }
        List<Thread> threads = new ArrayList<>();
        for (Caller caller : callers) {
            Thread thread = new Thread(caller, "semlayout-caller");
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        phases.warmedUp.await(SemaphoreLayoutCost.WARM_UP.toSeconds() + 60, TimeUnit.SECONDS);
        admin.configResetstat();
        String cpuBefore = admin.info("cpu");
        long readsBefore = stat(admin.info("stats"), "total_reads_processed");
        long started = System.nanoTime();
        phases.end = started + window.toNanos();
        phases.go.await(60, TimeUnit.SECONDS);
        for (Thread thread : threads) {
            thread.join(window.toMillis() + 60_000);
            if (thread.isAlive()) {
                throw new IllegalStateException("a caller did not stop");
            }
        }
        long nanos = System.nanoTime() - started;
        String cpuAfter = admin.info("cpu");
        long reads = stat(admin.info("stats"), "total_reads_processed") - readsBefore;
        Map<String, Long> calls = RedisProbe.commandStats(admin.info("commandstats"), "calls");
        calls.remove("script|load");
        long cycles = phases.cycles.get();
        long refusals = callers.stream().mapToLong(caller -> caller.refusals).sum();
        long errors = callers.stream().mapToLong(caller -> caller.errors).sum();
        if (errors > 0 || cycles == 0) {
            String first = callers.stream().map(caller -> caller.firstError).filter(java.util.Objects::nonNull)
                .findFirst().orElse("none");
            String refused = callers.stream().map(caller -> caller.firstRefusal).filter(java.util.Objects::nonNull)
                .findFirst().orElse("none");
            throw new IllegalStateException(set.label + ", " + shape.label + ": " + errors + " errors, " + cycles
                    + " cycles, " + refusals + " refusals; first error: " + first + "; first refusal: " + refused);
        }
        return new Result(cycles, refusals, RedisProbe.cpuMicros(cpuAfter, false) - RedisProbe.cpuMicros(cpuBefore, false),
                RedisProbe.cpuMicros(cpuAfter, true) - RedisProbe.cpuMicros(cpuBefore, true), calls, reads, nanos);
    }

    /** One integer field of an INFO reply, -1 when absent. */
    static long stat(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        return -1;
    }

    /** The callers' shared clock: warm-up until {@link #warmUpEnd}, then all wait; then the window until {@link #end}. */
    static final class Phases {

        final long warmUpEnd;

        final CyclicBarrier warmedUp = new CyclicBarrier(CALLERS + 1);

        final CyclicBarrier go = new CyclicBarrier(CALLERS + 1);

        final AtomicLong cycles = new AtomicLong();

        volatile long end;

        Phases(long warmUpEnd) {
            this.warmUpEnd = warmUpEnd;
        }
    }

    /** One caller: acquire, release at once, again; counts cycles only inside the window. */
    static final class Caller implements Runnable {

        private final RedisCommands<String, String> redis;

        private final SemaphoreScriptSet set;

        private final String acquireSha;

        private final String releaseSha;

        private final Template acquire;

        private final Template release;

        private final Phases phases;

        private final AtomicLong holds;

        private final String tokenPrefix;

        private long serial;

        /** A grant answers a fencing token (an integer) or, Redisson's, a bulk string. */
        private final ScriptOutputType acquireOutput;

        long refusals;

        long errors;

        String firstError;

        String firstRefusal;

        Caller(RedisCommands<String, String> redis, SemaphoreScriptSet set, String acquireSha, String releaseSha,
                Template acquire, Template release, Phases phases, AtomicLong holds) {
            this.redis = redis;
            this.set = set;
            this.acquireSha = acquireSha;
            this.releaseSha = releaseSha;
            this.acquire = acquire;
            this.release = release;
            this.phases = phases;
            this.holds = holds;
            this.acquireOutput = set.answersToken ? ScriptOutputType.VALUE : ScriptOutputType.INTEGER;
            this.tokenPrefix = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        }

        @Override
        public void run() {
            try {
                while (System.nanoTime() - this.phases.warmUpEnd < 0 && this.errors < MAX_ERRORS) {
                    cycle();
                }
                this.refusals = 0;
                this.phases.warmedUp.await(60, TimeUnit.SECONDS);
                this.phases.go.await(60, TimeUnit.SECONDS);
                long end = this.phases.end;
                while (System.nanoTime() - end < 0 && this.phases.cycles.get() < SemaphoreLayoutCost.MAX_CYCLES
                        && this.errors < MAX_ERRORS) {
                    if (cycle()) {
                        this.phases.cycles.incrementAndGet();
                    }
                }
            }
            catch (Exception ex) {
                error(ex.toString());
            }
        }

        /** One acquire and, when granted, its release: true when both went as expected. */
        private boolean cycle() {
            String token = token();
            String hold = Long.toString(this.holds.incrementAndGet());
            try {
                Object reply = this.redis.evalsha(this.acquireSha, this.acquireOutput,
                        Template.fill(this.acquire.keys(), token, hold, null),
                        Template.fill(this.acquire.args(), token, hold, null));
                if (!this.set.granted(reply)) {
                    if (this.firstRefusal == null) {
                        this.firstRefusal = reply + (reply == null ? "" : " (" + reply.getClass().getSimpleName() + ")");
                    }
                    this.refusals++;
                    LockSupport.parkNanos(PAUSE.toNanos());
                    return false;
                }
                String fence = reply.toString();
                Object released = this.redis.evalsha(this.releaseSha, ScriptOutputType.INTEGER,
                        Template.fill(this.release.keys(), token, hold, fence),
                        Template.fill(this.release.args(), token, hold, fence));
                if (!(released instanceof Long one && one == 1)) {
                    error("release answered " + released + " after acquire answered " + reply);
                    return false;
                }
                return true;
            }
            catch (RuntimeException ex) {
                error(ex + " at " + java.util.Arrays.toString(java.util.Arrays.copyOf(ex.getStackTrace(),
                        Math.min(4, ex.getStackTrace().length))));
                return false;
            }
        }

        /**
         * A new token as long as the captured one: for a hex token this caller's random prefix, then a serial number,
         * in hex; for a binary one (Redisson's permit id) random bytes, as Redisson makes them.
         */
        private String token() {
            int length = this.set.tokenLength;
            if (!this.set.hexToken) {
                byte[] bytes = new byte[length];
                ThreadLocalRandom.current().nextBytes(bytes);
                return new String(bytes, SemaphoreCapture.BYTES);
            }
            String serial = HexFormat.of().toHexDigits(++this.serial);
            String token = this.tokenPrefix + serial;
            return (token.length() >= length) ? token.substring(token.length() - length)
                    : "0".repeat(length - token.length()) + token;
        }

        private void error(String what) {
            this.errors++;
            if (this.firstError == null) {
                this.firstError = what;
            }
        }
    }
}
