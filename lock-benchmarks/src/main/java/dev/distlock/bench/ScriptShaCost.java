package dev.distlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * Evidence for a lock-core cost, no Redis needed: Spring Data Redis calls {@code RedisScript.getSha1()} on every script
 * execution, and for a script loaded from a {@link ClassPathResource} (as lock-core's {@code LockScripts} does)
 * {@code DefaultRedisScript.getSha1()} takes a lock and asks the resource for its last-modified time, which for a
 * script inside {@code lock-core.jar} opens a jar URL connection. This times that call against a script built from a
 * string, on one thread and on 16. Run: {@code java -cp lock-benchmarks/target/lock-benchmarks.jar
 * dev.distlock.bench.ScriptShaCost}.
 */
public final class ScriptShaCost {

    private static final int CALLS = 100_000;

    private static final int THREADS = 16;

    private ScriptShaCost() {
    }

    public static void main(String[] args) throws InterruptedException {
        ClassPathResource resource = new ClassPathResource("dev/distlock/redis/script/acquire.lua");
        DefaultRedisScript<Long> fromClassPath = new DefaultRedisScript<>();
        fromClassPath.setLocation(resource);
        fromClassPath.setResultType(Long.class);
        DefaultRedisScript<Long> fromString = new DefaultRedisScript<>(fromClassPath.getScriptAsString(), Long.class);
        System.out.println("acquire.lua loaded from " + describe(resource));
        for (int round = 1; round <= 3; round++) {
            System.out.printf(Locale.ROOT, "round %d: getSha1() %.2f µs from the class path, %.3f µs from a string (1 thread)%n",
                    round, microsPerCall(fromClassPath), microsPerCall(fromString));
        }
        System.out.printf(Locale.ROOT, "%d threads: %,.0f getSha1() calls/s in total from the class path, %,.0f from a string%n",
                THREADS, callsPerSecond(fromClassPath), callsPerSecond(fromString));
    }

    private static String describe(ClassPathResource resource) {
        try {
            return resource.getURL().toString();
        }
        catch (java.io.IOException ex) {
            return resource.getDescription();
        }
    }

    private static double microsPerCall(DefaultRedisScript<?> script) {
        long start = System.nanoTime();
        for (int i = 0; i < CALLS; i++) {
            script.getSha1();
        }
        return (System.nanoTime() - start) / 1_000.0 / CALLS;
    }

    private static double callsPerSecond(DefaultRedisScript<?> script) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        int perThread = CALLS / 5;
        long start = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    script.getSha1();
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join(60_000);
        }
        return (double) THREADS * perThread * 1e9 / (System.nanoTime() - start);
    }
}
