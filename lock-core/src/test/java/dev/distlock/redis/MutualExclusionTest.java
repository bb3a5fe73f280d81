package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Two independent clients (two connection factories, standing for two services) and 16 threads do a non-atomic
 * read-modify-write on a Redis counter under the lock. Without mutual exclusion increments are lost.
 */
@RedisTest
class MutualExclusionTest {

    private static final int THREADS_PER_CLIENT = 8;

    private static final int INCREMENTS_PER_THREAD = 250;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentReadModifyWriteUnderTheLockLosesNoIncrement() throws Exception {
        StringRedisTemplate counterClient = this.clients.template();
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        StringRedisTemplate firstData = this.clients.template();
        StringRedisTemplate secondData = this.clients.template();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60));
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_CLIENT);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < 2 * THREADS_PER_CLIENT; t++) {
                RedisLockService locks = (t % 2 == 0) ? first : second;
                StringRedisTemplate data = (t % 2 == 0) ? firstData : secondData;
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < INCREMENTS_PER_THREAD; i++) {
                        try (LockHandle lock = locks.acquire("counter", options)) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            String value = data.opsForValue().get("unsafe-counter");
                            int next = (value == null ? 0 : Integer.parseInt(value)) + 1;
                            Thread.yield(); // widen the race window
                            data.opsForValue().set("unsafe-counter", Integer.toString(next));
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(110, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(counterClient.opsForValue().get("unsafe-counter"))
            .isEqualTo(Integer.toString(2 * THREADS_PER_CLIENT * INCREMENTS_PER_THREAD));
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutTheLockTheSameWorkloadLosesIncrements() throws Exception {
        // The control experiment: shows that the workload above does race, so its exact count means something.
        StringRedisTemplate data = this.clients.template();
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_CLIENT);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < 2 * THREADS_PER_CLIENT; t++) {
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        String value = data.opsForValue().get("racy-counter");
                        Thread.yield();
                        data.opsForValue()
                            .set("racy-counter", Integer.toString((value == null ? 0 : Integer.parseInt(value)) + 1));
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(50, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(Integer.parseInt(data.opsForValue().get("racy-counter")))
            .isLessThan(2 * THREADS_PER_CLIENT * 100);
    }
}
