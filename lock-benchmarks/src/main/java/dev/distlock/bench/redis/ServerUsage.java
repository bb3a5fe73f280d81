package dev.distlock.bench.redis;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What Redis did in one measured window: calls per command from {@code INFO commandstats} (after
 * {@code CONFIG RESETSTAT}; commands run inside Lua scripts are counted too, as Redis counts them) and the server's
 * CPU time from {@code INFO cpu}.
 *
 * @param calls calls per command name, without the harness's own INFO and CONFIG calls
 * @param cpuMicros used_cpu_sys + used_cpu_user consumed in the window, in microseconds
 */
public record ServerUsage(Map<String, Long> calls, long cpuMicros) {

    public static final ServerUsage NONE = new ServerUsage(Map.of(), 0);

    /** Script invocations: each EVAL, EVALSHA or FCALL is one request that runs several commands inside Redis. */
    private static final java.util.Set<String> SCRIPT_COMMANDS = java.util.Set.of("eval", "evalsha", "eval_ro",
            "evalsha_ro", "fcall", "fcall_ro");

    public ServerUsage {
        calls = Collections.unmodifiableMap(new TreeMap<>(calls));
    }

    /** Every command call, including those run inside scripts. */
    public long totalCalls() {
        return this.calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** EVAL/EVALSHA/FCALL calls. */
    public long scriptCalls() {
        return this.calls.entrySet()
            .stream()
            .filter(entry -> SCRIPT_COMMANDS.contains(entry.getKey()))
            .mapToLong(Map.Entry::getValue)
            .sum();
    }

    /** The sum of two windows. */
    public ServerUsage plus(ServerUsage other) {
        Map<String, Long> sum = new TreeMap<>(this.calls);
        other.calls.forEach((command, count) -> sum.merge(command, count, Long::sum));
        return new ServerUsage(sum, this.cpuMicros + other.cpuMicros);
    }
}
