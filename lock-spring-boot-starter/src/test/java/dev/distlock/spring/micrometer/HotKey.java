package dev.distlock.spring.micrometer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;

/** Threads of one service taking turns on one key, so that releases hand the lock to local waiters. */
final class HotKey {

    private HotKey() {
    }

    /**
     * Four threads take and release {@code key}, at most 50 times each, until {@code enough} holds or {@code limit}
     * passes.
     *
     * @return how many acquisitions there were
     */
    static int hammer(LockService locks, String key, BooleanSupplier enough, Duration limit) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger cycles = new AtomicInteger();
        long deadline = System.nanoTime() + limit.toNanos();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(20));
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < 4; t++) {
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 50 && !enough.getAsBoolean() && System.nanoTime() - deadline < 0; i++) {
                        LockHandle lock = locks.acquire(key, options);
                        cycles.incrementAndGet();
                        lock.release();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(limit.toSeconds() + 30, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        return cycles.get();
    }
}
