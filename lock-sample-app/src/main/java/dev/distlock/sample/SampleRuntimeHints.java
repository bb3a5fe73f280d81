package dev.distlock.sample;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the sample's native image needs beyond the starter's hints: its own Lua script, and the redis-server binaries
 * of {@code org.signal:embedded-redis}, which it extracts from the class path when no Redis is configured. Registered
 * in {@code META-INF/spring/aot.factories}.
 */
public class SampleRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern("dev/distlock/sample/wiki/fenced-write.lua");
        hints.resources().registerPattern("redis-server-*");
    }
}
