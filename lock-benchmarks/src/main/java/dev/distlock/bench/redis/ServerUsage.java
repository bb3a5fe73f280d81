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
 * @param usec microseconds Redis spent executing each command (a script's time includes its inner commands')
 * @param cpuMicros used_cpu_sys + used_cpu_user consumed in the window, in microseconds
 */
public record ServerUsage(Map<String, Long> calls, Map<String, Long> usec, long cpuMicros) {

    public static final ServerUsage NONE = new ServerUsage(Map.of(), Map.of(), 0);

    /** Script invocations: each EVAL, EVALSHA or FCALL is one request that runs several commands inside Redis. */
    private static final java.util.Set<String> SCRIPT_COMMANDS = java.util.Set.of("eval", "evalsha", "eval_ro",
            "evalsha_ro", "fcall", "fcall_ro");

    public ServerUsage {
        calls = Collections.unmodifiableMap(new TreeMap<>(calls));
        usec = Collections.unmodifiableMap(new TreeMap<>(usec));
    }

    /** Every command call, including those run inside scripts. */
    public long totalCalls() {
        return this.calls.values().stream().mapToLong(Long::longValue).sum();
    }

    /** EVAL/EVALSHA/FCALL calls. */
    public long scriptCalls() {
        return sumOfScripts(this.calls);
    }

    /** Requests that run or load scripts: {@link #scriptCalls()} plus SCRIPT LOAD. */
    public long scriptRequests() {
        return scriptCalls() + this.calls.getOrDefault("script|load", 0L);
    }

    /** Microseconds Redis spent running EVAL/EVALSHA/FCALL calls, their inner commands included. */
    public long scriptMicros() {
        return sumOfScripts(this.usec);
    }

    private static long sumOfScripts(Map<String, Long> values) {
        return values.entrySet()
            .stream()
            .filter(entry -> SCRIPT_COMMANDS.contains(entry.getKey()))
            .mapToLong(Map.Entry::getValue)
            .sum();
    }

    /** The sum of two windows. */
    public ServerUsage plus(ServerUsage other) {
        return new ServerUsage(add(this.calls, other.calls), add(this.usec, other.usec),
                this.cpuMicros + other.cpuMicros);
    }

    private static Map<String, Long> add(Map<String, Long> one, Map<String, Long> other) {
        Map<String, Long> sum = new TreeMap<>(one);
        other.forEach((command, count) -> sum.merge(command, count, Long::sum));
        return sum;
    }
}
