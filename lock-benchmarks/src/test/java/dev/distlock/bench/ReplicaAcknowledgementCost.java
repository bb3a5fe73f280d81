package dev.distlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * What replica acknowledgements cost a lock cycle (grant, release) against a master with one replica on 127.0.0.1:
 * cycles per second and latency, with and without, blocking and non-blocking, one thread and eight threads on keys of
 * their own. Bounded (a fixed number of cycles per run). Not part of the suite (no {@code Test} suffix): run it with
 * {@code mvn -B -ntp -q -pl lock-benchmarks -am test -Dtest=ReplicaAcknowledgementCost
 * -Dsurefire.failIfNoSpecifiedTests=false}; it prints its figures.
 */
class ReplicaAcknowledgementCost {

    private static final int WARM_UP = 500;

    private static final int CYCLES = 3000;

    @Test
    void measure() throws Exception {
        try (RedisServers servers = RedisServers.create()) {
            RedisNode master = servers.start();
            servers.startReplicaOf(master);
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", master.port()),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
            factory.afterPropertiesSet();
            factory.start();
            try {
                StringRedisTemplate redis = new StringRedisTemplate(factory);
                for (int round = 0; round < 2; round++) { // the second round is the one to read
                    run(redis, "off", b -> b.replicaAcknowledgements(0, Duration.ofMillis(500)));
                    run(redis, "on (1 replica)", b -> b.replicaAcknowledgements(1, Duration.ofMillis(500)));
                }
            }
            finally {
                factory.destroy();
            }
        }
    }

    private static void run(StringRedisTemplate redis, String label, UnaryOperator<RedisLockServiceBuilder> settings)
            throws Exception {
        try (RedisLockService locks = settings.apply(RedisLockService.builder(redis).restartGrace(Duration.ZERO))
            .build()) {
            report(label + ", blocking, 1 thread", 1, cycles(locks, 1, false));
            report(label + ", async, 1 thread", 1, cycles(locks, 1, true));
            report(label + ", blocking, 8 threads", 8, cycles(locks, 8, false));
            report(label + ", async, 8 threads", 8, cycles(locks, 8, true));
        }
    }

    /** Per thread its own key: {@link #CYCLES} cycles after a warm-up; returns every cycle's nanoseconds. */
    private static long[] cycles(RedisLockService locks, int threads, boolean async) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String key = "cost-" + t;
                results.add(pool.submit(() -> {
                    for (int i = 0; i < WARM_UP; i++) {
                        cycle(locks, key, async);
                    }
                    long[] nanos = new long[CYCLES / threads];
                    for (int i = 0; i < nanos.length; i++) {
                        long begin = System.nanoTime();
                        cycle(locks, key, async);
                        nanos[i] = System.nanoTime() - begin;
                    }
                    return nanos;
                }));
            }
            List<long[]> all = new ArrayList<>();
            for (Future<long[]> result : results) {
                all.add(result.get(5, TimeUnit.MINUTES));
            }
            return all.stream().flatMapToLong(Arrays::stream).toArray();
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static void cycle(RedisLockService locks, String key, boolean async) throws Exception {
        if (async) {
            LockHandle lock = locks.async().acquire(key, LockOptions.defaults()).get(10, TimeUnit.SECONDS);
            lock.releaseAsync().get(10, TimeUnit.SECONDS);
        }
        else {
            locks.acquire(key).release();
        }
    }

    private static void report(String label, int threads, long[] nanos) {
        Arrays.sort(nanos);
        double seconds = Arrays.stream(nanos).sum() / 1e9 / threads; // each thread's measured time, on average
        System.out.printf("%-36s %8.0f cycles/s  p50 %6.0f us  p99 %7.0f us  max %7.0f us%n", label,
                nanos.length / seconds, nanos[nanos.length / 2] / 1e3, nanos[(int) (nanos.length * 0.99)] / 1e3,
                nanos[nanos.length - 1] / 1e3);
    }
}
