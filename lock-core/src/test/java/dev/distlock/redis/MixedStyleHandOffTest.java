package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Blocking and non-blocking callers of one service wait in one local queue per lock and hand the lock to each other:
 * a hot key hammered by both styles is handed off across styles, with mutual exclusion and rising fencing tokens.
 */
@RedisTest
class MixedStyleHandOffTest {

    private static final String BLOCKING = "blocking";

    private static final String ASYNC = "async";

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aHotKeyIsHandedOffBetweenBlockingAndNonBlockingCallers() throws Exception {
        RedisLockService locks = this.clients.service();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60));
        int callersPerStyle = 4;
        int cycles = 60;
        List<Turn> turns = new ArrayList<>(); // in holding order, since holders never overlap
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        ExecutorService blockingCallers = Executors.newFixedThreadPool(callersPerStyle);
        // where non-blocking callers run their work and release (the blocking release, which hands off): never a
        // Redis client thread
        ExecutorService work = Executors.newFixedThreadPool(2);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> blocking = new ArrayList<>();
            for (int t = 0; t < callersPerStyle; t++) {
                blocking.add(blockingCallers.submit(() -> {
                    start.await();
                    for (int i = 0; i < cycles; i++) {
                        LockHandle lock = locks.acquire("hot", options);
                        hold(lock, BLOCKING, turns, inside, overlaps);
                        lock.release();
                    }
                    return null;
                }));
            }
            List<CompletableFuture<Void>> async = new ArrayList<>();
            for (int t = 0; t < callersPerStyle; t++) {
                async.add(CompletableFuture.runAsync(() -> { }, work)
                    .thenCompose(ignored -> asyncCycles(locks, options, cycles, work, turns, inside, overlaps)));
            }
            start.countDown();
            for (Future<?> caller : blocking) {
                caller.get(100, TimeUnit.SECONDS);
            }
            CompletableFuture.allOf(async.toArray(CompletableFuture[]::new)).get(100, TimeUnit.SECONDS);
        }
        finally {
            blockingCallers.shutdownNow();
            work.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(turns).hasSize(2 * callersPerStyle * cycles);
        List<Long> tokens = turns.stream().map(Turn::fencingToken).toList();
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        int blockingToAsync = 0;
        int asyncToBlocking = 0;
        for (int i = 1; i < turns.size(); i++) {
            Turn previous = turns.get(i - 1);
            Turn current = turns.get(i);
            if (current.handedOff()) {
                blockingToAsync += (previous.style().equals(BLOCKING) && current.style().equals(ASYNC)) ? 1 : 0;
                asyncToBlocking += (previous.style().equals(ASYNC) && current.style().equals(BLOCKING)) ? 1 : 0;
            }
        }
        assertThat(blockingToAsync).as("hand-offs from blocking to non-blocking callers").isGreaterThanOrEqualTo(10);
        assertThat(asyncToBlocking).as("hand-offs from non-blocking to blocking callers").isGreaterThanOrEqualTo(10);
        assertThat(this.redis.lockField("distlock:{hot}:lock", "owner")).as("the lock is free at the end").isNull();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWithdrawnNonBlockingWaiterLeavesTheSharedQueueAndTheLockGoesToTheNext() throws Exception {
        RedisLockService locks = this.clients.service();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(30));
        LockHandle holder = locks.acquire("queued");
        // the lock is held by this service: both queue behind its holder before the calls return
        CompletableFuture<LockHandle> withdrawn = locks.async().acquire("queued", options);
        CompletableFuture<LockHandle> next = locks.async().acquire("queued", options);
        withdrawn.cancel(false);
        holder.release();
        LockHandle handed = next.get(20, TimeUnit.SECONDS);
        assertThat(((RedisLockHandle) handed).handedOff).as("handed to the non-blocking waiter").isTrue();
        assertThat(handed.fencingToken()).isGreaterThan(holder.fencingToken());
        CompletableFuture<LockHandle> blocking = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            try {
                blocking.complete(locks.acquire("queued", options));
            }
            catch (RuntimeException ex) {
                blocking.completeExceptionally(ex);
            }
        });
        waiter.start();
        Await.until(Duration.ofSeconds(10), () -> waiter.getState() == Thread.State.TIMED_WAITING, "the thread waits");
        handed.release();
        LockHandle last = blocking.get(20, TimeUnit.SECONDS);
        assertThat(((RedisLockHandle) last).handedOff).as("handed to the blocking waiter").isTrue();
        assertThat(last.fencingToken()).isGreaterThan(handed.fencingToken());
        CompletableFuture<LockHandle> pending = locks.async().acquire("queued", options);
        locks.close();
        assertThatThrownBy(() -> pending.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(withdrawn).isCancelled();
    }

    private static CompletableFuture<Void> asyncCycles(RedisLockService locks, LockOptions options, int left,
            ExecutorService work, List<Turn> turns, AtomicInteger inside, AtomicInteger overlaps) {
        if (left == 0) {
            return CompletableFuture.completedFuture(null);
        }
        return locks.async().acquire("hot", options).thenAcceptAsync(lock -> {
            hold(lock, ASYNC, turns, inside, overlaps);
            lock.release();
        }, work).thenCompose(ignored -> asyncCycles(locks, options, left - 1, work, turns, inside, overlaps));
    }

    private static void hold(LockHandle lock, String style, List<Turn> turns, AtomicInteger inside,
            AtomicInteger overlaps) {
        if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        synchronized (turns) {
            turns.add(new Turn(style, lock.fencingToken(), ((RedisLockHandle) lock).handedOff));
        }
        Thread.yield();
        inside.decrementAndGet();
    }

    private record Turn(String style, long fencingToken, boolean handedOff) {
    }
}
