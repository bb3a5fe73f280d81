package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Two application contexts (two nodes of one service, each with its own connection and lock service) and eight
 * threads call a {@code @DistributedLock} method that does a non-atomic read-modify-write on a Redis counter. Without
 * mutual exclusion increments would be lost; with it the count is exact and no two calls overlap.
 */
@RedisTest
class MutualExclusionAspectTest {

    private static final int THREADS_PER_NODE = 4;

    private static final int CALLS_PER_THREAD = 50;

    /** Calls inside the locked method across both contexts, to catch an overlap directly. */
    static final AtomicInteger inside = new AtomicInteger();

    static final AtomicInteger overlaps = new AtomicInteger();

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentCallersOnTwoNodesSerializeAndLoseNoIncrement(RedisNode redis) throws Exception {
        ApplicationContextRunner runner = LockContexts.runner(redis).withUserConfiguration(CounterConfiguration.class);
        runner.run(first -> runner.run(second -> {
            List<Counter> counters = List.of(first.getBean(Counter.class), second.getBean(Counter.class));
            assertThat(counters).allMatch(AopUtils::isAopProxy);
            ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_NODE);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> workers = new ArrayList<>();
            try {
                for (int t = 0; t < 2 * THREADS_PER_NODE; t++) {
                    Counter counter = counters.get(t % 2);
                    workers.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < CALLS_PER_THREAD; i++) {
                            counter.increment("hits");
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> worker : workers) {
                    worker.get(50, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
        }));
        assertThat(overlaps).hasValue(0);
        assertThat(redis.call("GET", "counter:hits"))
            .isEqualTo(Integer.toString(2 * THREADS_PER_NODE * CALLS_PER_THREAD));
    }

    @Configuration(proxyBeanMethods = false)
    static class CounterConfiguration {

        @Bean
        Counter counter(StringRedisTemplate redis) {
            return new Counter(redis);
        }
    }

    static class Counter {

        private final StringRedisTemplate redis;

        Counter(StringRedisTemplate redis) {
            this.redis = redis;
        }

        @DistributedLock(key = "'counter:' + #name", waitTime = "30s")
        public void increment(String name) {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            String value = this.redis.opsForValue().get("counter:" + name);
            Thread.yield(); // widen the race window
            int next = (value == null) ? 1 : Integer.parseInt(value) + 1;
            this.redis.opsForValue().set("counter:" + name, Integer.toString(next));
            inside.decrementAndGet();
        }
    }
}
