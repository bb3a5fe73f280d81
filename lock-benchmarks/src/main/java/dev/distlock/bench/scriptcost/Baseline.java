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
 * Baseline rows: the exclusive lock's scripts as they were at commit e446f6b, before issue 30's cuts (copies with their
 * includes, in {@code dev/distlock/bench/baseline}), run with the same keys and arguments as today's in the same run,
 * so that before and after meet the same machine load.
 */
final class Baseline {

    /** Marks a baseline row. */
    static final String BEFORE = " (before: e446f6b)";

    /** acquire.lua's arguments before ScriptArgument (waiting came before the restart grace): today's index of each. */
    static final int[] ACQUIRE = { 0, 1, 2, 3, 4, 6, 5 };

    /** release.lua's arguments before ScriptArgument: today's index of each old position. */
    static final int[] RELEASE = { 0, 1, 6, 8, 5, 4, 7, 2, 3, 9 };

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
