package dev.distlock.bench.scriptcost;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

import dev.distlock.redis.script.ScriptCall;

/**
 * Baseline rows: the exclusive lock's scripts as they were at commit 505b3d1, before the renewal's one-field read and
 * the text arguments (copies with their includes and argument names expanded, in {@code dev/distlock/bench/baseline}),
 * run with the same keys and arguments as today's in the same run, so that before and after meet the same machine
 * load. (The old scripts count renewed holds in 'watched' where today's use the owner token's field: a baseline
 * release leaves that field behind, which costs it nothing measurable, and a baseline renewal reads a 'watched' that
 * is absent, which renews as when it was present.)
 */
final class Baseline {

    /** Marks a baseline row. */
    static final String BEFORE = " (before: 505b3d1)";

    private Baseline() {
    }

    /**
     * The same call as {@code call}, with {@code file}'s baseline text and the arguments put back in its order
     * ({@code order}: today's index of each old position; null when unchanged).
     */
    static CostCase of(String file, String name, List<IntFunction<ScriptCall>> setup, IntFunction<ScriptCall> call,
            int[] order, LongPredicate expected) {
        RedisScript<Long> script = script(file, Long.class);
        return ScriptCases.of(name + BEFORE, "the same, with the scripts before the cuts", setup, i -> {
            ScriptCall real = call.apply(i);
            Object[] args = real.args();
            if (order != null) {
                Object[] old = new Object[order.length];
                for (int k = 0; k < order.length; k++) {
                    old[k] = args[order[k]];
                }
                args = old;
            }
            return new ScriptCall(real.scripts(), script, real.keys(), args);
        }, expected);
    }

    static <T> RedisScript<T> script(String file, Class<T> type) {
        try {
            return new DefaultRedisScript<>(new ClassPathResource("dev/distlock/bench/baseline/" + file)
                .getContentAsString(StandardCharsets.UTF_8), type);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
