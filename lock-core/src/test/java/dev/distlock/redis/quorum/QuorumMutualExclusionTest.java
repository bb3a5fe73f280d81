package dev.distlock.redis.quorum;

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

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;


/**
 * Two quorum clients and eight threads do a non-atomic read-modify-write under the lock, with all five masters up and
 * with one or two of them stopped. Without mutual exclusion increments are lost.
 */
class QuorumMutualExclusionTest extends QuorumTest {

    private static final int THREADS_PER_CLIENT = 4;

    private static final int INCREMENTS_PER_THREAD = 25;

    /** Guarded by the lock only; volatile so that a lost increment can only come from overlapping holders. */
    private volatile int counter;

    @ParameterizedTest(name = "{0} of 5 masters stopped")
    @ValueSource(ints = { 0, 1, 2 })
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentReadModifyWriteUnderTheLockLosesNoIncrement(int stopped) throws Exception {
        for (int i = 0; i < stopped; i++) {
            masters.get(i).stop();
        }
        List<QuorumLockService> services = List.of(this.clients.service(), this.clients.service());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(50));
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_CLIENT);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < 2 * THREADS_PER_CLIENT; t++) {
                QuorumLockService locks = services.get(t % 2);
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < INCREMENTS_PER_THREAD; i++) {
                        try (LockHandle lock = locks.acquire("counter", options)) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            int value = this.counter;
                            Thread.yield(); // widen the race window
                            this.counter = value + 1;
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(55, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(this.counter).isEqualTo(2 * THREADS_PER_CLIENT * INCREMENTS_PER_THREAD);
        assertThat(QuorumLockServiceTest.holders(masters, "counter")).isZero();
    }
}
