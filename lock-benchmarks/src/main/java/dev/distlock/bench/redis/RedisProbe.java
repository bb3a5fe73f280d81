package dev.distlock.bench.redis;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.distlock.test.RedisNode;

/**
 * Reads the benchmark server's counters through {@link RedisNode#call}, on a connection of its own, outside the
 * clients under test.
 */
public final class RedisProbe {

    /** Commands the harness itself sends around a window; left out of every count. */
    static final Set<String> HARNESS_COMMANDS = Set.of("info", "config|resetstat", "flushall", "dbsize",
            "monitor", "keys", "memory|usage");

    private static final String KEY_BYTES = "local total = 0 "
            + "for _, key in ipairs(redis.call('KEYS', ARGV[1])) do "
            + "total = total + (redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') or 0) end "
            + "return total";

    private final RedisNode node;

    public RedisProbe(RedisNode node) {
        this.node = node;
    }

    /** Starts a window: resets command stats and notes the CPU time so far. */
    public Window start() {
        this.node.call("CONFIG", "RESETSTAT");
        return new Window(cpuMicros(this.node.call("INFO", "cpu")));
    }

    /** The calls per command since the last window started ({@code INFO commandstats}), without the harness's. */
    public Map<String, Long> callsSoFar() {
        return commandStats(this.node.call("INFO", "commandstats"), "calls");
    }

    public void flushAll() {
        this.node.call("FLUSHALL");
    }

    public long keyCount() {
        return Long.parseLong(this.node.call("DBSIZE"));
    }

    /**
     * {@code used_memory} less {@code mem_clients_normal} and {@code mem_clients_slaves} of {@code INFO memory}: the
     * bytes the server's allocator has handed out, without the connections' buffers, which grow and shrink with
     * traffic (and with this probe's own connection) rather than with the data.
     */
    public long memoryWithoutClients() {
        String info = this.node.call("INFO", "memory");
        return Long.parseLong(field(info, "used_memory")) - Long.parseLong(field(info, "mem_clients_normal"))
                - Long.parseLong(field(info, "mem_clients_slaves"));
    }

    /**
     * The memory of the keys matching {@code pattern}: the sum of their {@code MEMORY USAGE ... SAMPLES 0} (every
     * element, the key's name and its dictionary entry counted; not the keyspace's buckets nor the expiry table), in
     * one script call ({@code KEYS}: for small test data sets only).
     */
    public long keyBytes(String pattern) {
        return Long.parseLong(this.node.call("EVAL", KEY_BYTES, "0", pattern));
    }

    /** The keys matching {@code pattern} ({@code KEYS}: for small test data sets only). */
    public List<String> keys(String pattern) {
        String reply = this.node.call("KEYS", pattern);
        return (reply == null || reply.isEmpty()) ? List.of() : List.of(reply.split("\n"));
    }

    /** {@code MEMORY USAGE key SAMPLES 0}: the bytes one key takes, all its elements counted; 0 when it is gone. */
    public long memoryUsage(String key) {
        String reply = this.node.call("MEMORY", "USAGE", key, "SAMPLES", "0");
        return (reply == null) ? 0 : Long.parseLong(reply);
    }

    /** {@code uptime_in_seconds} of {@code INFO server}: how long the server process has run, in whole seconds. */
    public long uptimeSeconds() {
        return Long.parseLong(field(this.node.call("INFO", "server"), "uptime_in_seconds"));
    }

    public String serverVersion() {
        return field(this.node.call("INFO", "server"), "redis_version");
    }

    /** The allocator the server was built with: jemalloc in production builds, libc in the embedded binary. */
    public String memoryAllocator() {
        return field(this.node.call("INFO", "memory"), "mem_allocator");
    }

    private static String field(String info, String name) {
        return info.lines()
            .filter(line -> line.startsWith(name + ":"))
            .map(line -> line.substring(name.length() + 1).trim())
            .findFirst()
            .orElse("unknown");
    }

    /** One measured window. */
    public final class Window {

        private final long startCpuMicros;

        private Window(long startCpuMicros) {
            this.startCpuMicros = startCpuMicros;
        }

        /** Ends the window: CPU first, then the command stats. */
        public ServerUsage finish() {
            long cpu = cpuMicros(RedisProbe.this.node.call("INFO", "cpu")) - this.startCpuMicros;
            String commandStats = RedisProbe.this.node.call("INFO", "commandstats");
            return new ServerUsage(commandStats(commandStats, "calls"), commandStats(commandStats, "usec"), cpu);
        }
    }

    /** {@code used_cpu_sys + used_cpu_user} of an {@code INFO cpu} reply, in microseconds. */
    static long cpuMicros(String infoCpu) {
        return Math.max(0, cpuMicros(infoCpu, false));
    }

    /**
     * {@code used_cpu_sys + used_cpu_user} of an {@code INFO cpu} reply, or with {@code mainThread} their
     * {@code _main_thread} figures, in microseconds; -1 when the reply has none of them.
     */
    public static long cpuMicros(String infoCpu, boolean mainThread) {
        double seconds = 0;
        boolean found = false;
        String suffix = mainThread ? "_main_thread:" : ":";
        for (String line : infoCpu.split("\r?\n")) {
            if (line.startsWith("used_cpu_sys" + suffix) || line.startsWith("used_cpu_user" + suffix)) {
                seconds += Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
                found = true;
            }
        }
        return found ? Math.round(seconds * 1_000_000) : -1;
    }

    /**
     * One field ({@code calls} or {@code usec}) per command from an {@code INFO commandstats} reply, without
     * {@link #HARNESS_COMMANDS}.
     */
    public static Map<String, Long> commandStats(String infoCommandStats, String field) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : infoCommandStats.split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            String command = line.substring("cmdstat_".length(), colon);
            if (HARNESS_COMMANDS.contains(command)) {
                continue;
            }
            for (String pair : line.substring(colon + 1).split(",")) {
                if (pair.startsWith(field + "=")) {
                    calls.merge(command, Long.parseLong(pair.substring(field.length() + 1)), Long::sum);
                }
            }
        }
        return calls;
    }
}
