package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;

/**
 * Lock calls from many threads and a non-blocking caller on one service while another client runs {@code SCRIPT FLUSH}
 * again and again, bounded in time and in count. Records what the issue asks to hold: no error reaches a caller,
 * mutual exclusion (an in-process count of holders of each shared key), and each caller's order (a release sent
 * without waiting, then another owner's {@code tryAcquire} of the same key sent after it: it must find the lock free).
 */
final class ScriptFlushLoad {

    static final int THREADS = 6;

    static final int CHAINS = 16;

    private static final int MOST_CYCLES = 400;

    private final RedisLockService locks;

    private final Runnable flush;

    private final long deadline;

    final ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();

    final AtomicInteger overlaps = new AtomicInteger();

    final AtomicInteger reordered = new AtomicInteger();

    final AtomicLong cycles = new AtomicLong();

    final AtomicLong asyncCycles = new AtomicLong();

    final AtomicInteger flushes = new AtomicInteger();

    private final AtomicInteger[] holders = { new AtomicInteger(), new AtomicInteger() };

    private volatile boolean stop;

    ScriptFlushLoad(RedisLockService locks, Runnable flush, Duration duration) {
        this.locks = locks;
        this.flush = flush;
        this.deadline = System.nanoTime() + duration.toNanos();
    }

    /** Runs the load and the flushes to the end; waits for every caller. */
    void run() throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            threads.add(started("flush-load-" + t, () -> caught(() -> blocking(thread))));
        }
        Thread flusher = started("flusher", () -> caught(this::flushing));
        CompletableFuture<?>[] chains = new CompletableFuture<?>[CHAINS];
        for (int c = 0; c < CHAINS; c++) {
            chains[c] = chain("chain-" + c, 0);
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        this.stop = true;
        flusher.join(TimeUnit.SECONDS.toMillis(10));
        CompletableFuture.allOf(chains).get(30, TimeUnit.SECONDS);
    }

    private static Thread started(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.start();
        return thread;
    }

    private void caught(Runnable task) {
        try {
            task.run();
        }
        catch (Throwable ex) {
            this.errors.add(ex);
        }
    }

    private boolean going(int done) {
        return done < MOST_CYCLES && System.nanoTime() < this.deadline && !this.stop;
    }

    private void blocking(int thread) {
        LockOptions waiting = LockOptions.defaults().withWaitTime(Duration.ofSeconds(10));
        LockOptions fixed = LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30));
        String own = "own-" + thread;
        for (int i = 0; going(i); i++) {
            int shared = i % this.holders.length;
            try (LockHandle lock = this.locks.acquire("shared-" + shared, waiting)) {
                if (this.holders[shared].incrementAndGet() != 1) {
                    this.overlaps.incrementAndGet();
                }
                this.holders[shared].decrementAndGet();
            }
            LockHandle mine = this.locks.acquire(own, (i % 2 == 0) ? fixed : LockOptions.defaults());
            CompletableFuture<Void> released = mine.releaseAsync(); // not waited for: the next call goes behind it
            Optional<LockHandle> next = this.locks.tryAcquire(own, fixed.withOwner("other-" + thread));
            if (next.isEmpty()) {
                this.reordered.incrementAndGet();
            }
            else {
                next.get().release();
            }
            released.join();
            this.cycles.incrementAndGet();
        }
    }

    /** One non-blocking caller's chain: acquire, release without waiting, another owner's tryAcquire, again. */
    private CompletableFuture<Void> chain(String key, int done) {
        if (!going(done)) {
            return CompletableFuture.completedFuture(null);
        }
        return this.locks.async().acquire(key, LockOptions.defaults()).thenCompose(mine -> {
            CompletableFuture<Void> released = mine.releaseAsync();
            return this.locks.async().tryAcquire(key, LockOptions.defaults().withOwner("other-" + key))
                .thenCompose(next -> {
                    if (next.isEmpty()) {
                        this.reordered.incrementAndGet();
                        return released;
                    }
                    return released.thenCompose(unused -> next.get().releaseAsync());
                });
        }).whenComplete(record(failure -> this.errors.add(failure))).thenCompose(unused -> {
            this.asyncCycles.incrementAndGet();
            return chain(key, done + 1);
        });
    }

    private static <T> java.util.function.BiConsumer<T, Throwable> record(Consumer<Throwable> errors) {
        return (value, failure) -> {
            if (failure != null) {
                errors.accept(failure);
            }
        };
    }

    private void flushing() {
        while (!this.stop && System.nanoTime() < this.deadline && this.flushes.get() < 2_000) {
            this.flush.run();
            this.flushes.incrementAndGet();
            try {
                Thread.sleep(5); // a pace, not a wait for anything: the load runs meanwhile
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
