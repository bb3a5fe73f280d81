package dev.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.distlock.test.Await;

/**
 * What every {@link LockService} promises, against real Redis processes: mutual exclusion under real concurrency,
 * reentrancy, wait limits, fencing order, lost-lease reports and bad input. A subclass supplies two independent
 * services (as two processes would have) and a way to make a held lock vanish from Redis.
 */
public abstract class LockServiceContract {

    /** A service of its own, as a separate process would have; closed by the subclass after each test. */
    protected abstract LockService newService();

    /** Deletes the lock of {@code key} from Redis behind its holder's back (an eviction, a restart, a failover). */
    protected abstract void deleteLock(String key);

    @Test
    void twoServicesNeverHoldOneLockAtOnce() throws Exception {
        LockService first = newService();
        LockService second = newService();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger counter = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                LockService locks = (i % 2 == 0) ? first : second;
                workers.add(pool.submit(() -> {
                    for (int n = 0; n < 25; n++) {
                        locks.executeLocked("contract:counter",
                                LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)), lock -> {
                                    if (inside.incrementAndGet() > 1) {
                                        overlaps.incrementAndGet();
                                    }
                                    int read = counter.get();
                                    Thread.onSpinWait();
                                    counter.set(read + 1);
                                    inside.decrementAndGet();
                                    return null;
                                });
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(counter).hasValue(100);
    }

    @Test
    void theSameOwnerReentersAndTheLastReleaseFreesTheLock() {
        LockService locks = newService();
        LockService other = newService();
        LockHandle outer = locks.acquire("contract:reentry");
        LockHandle inner = locks.acquire("contract:reentry", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        inner.release();
        assertThat(outer.isHeld()).isTrue();
        assertThat(other.tryAcquire("contract:reentry")).isEmpty();
        outer.release();
        assertThat(other.tryAcquire("contract:reentry")).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aHeldLockIsRefusedAtOnceOrAfterTheWaitLimit() {
        LockService locks = newService();
        LockService other = newService();
        try (LockHandle held = locks.acquire("contract:wait")) {
            assertThat(other.tryAcquire("contract:wait")).isEmpty();
            long start = System.nanoTime();
            assertThatThrownBy(() -> other.acquire("contract:wait",
                    LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
                .isInstanceOf(LockTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void aWaiterGetsTheLockWhenItIsReleased() throws Exception {
        LockService locks = newService();
        LockService other = newService();
        LockHandle held = locks.acquire("contract:handover");
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> other.acquire("contract:handover",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))));
        held.release();
        LockHandle next = waiter.get(30, TimeUnit.SECONDS);
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.release();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossServices() {
        LockService first = newService();
        LockService second = newService();
        long last = 0;
        for (int i = 0; i < 10; i++) {
            LockService locks = (i % 2 == 0) ? first : second;
            try (LockHandle lock = locks.acquire("contract:fence")) {
                assertThat(lock.fencingToken()).isGreaterThan(last);
                last = lock.fencingToken();
            }
        }
    }

    @Test
    void aLockDeletedBehindTheHoldersBackIsReportedLost() {
        LockService locks = newService();
        LockHandle lock = locks.acquire("contract:lost");
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        lock.onLeaseLost(lost::add);
        deleteLock("contract:lost");
        // a re-entry finds the hold gone, reports the loss and takes the lock anew
        LockHandle again = locks.acquire("contract:lost");
        Await.until(Duration.ofSeconds(10), () -> !lost.isEmpty(), "the holder is told");
        assertThat(lock.isHeld()).isFalse();
        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class);
        assertThat(again.isHeld()).isTrue();
        again.release();
    }

    @Test
    void badInputFailsAtTheCallNamingTheArgument() {
        LockService locks = newService();
        assertThatThrownBy(() -> locks.acquire(null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("key");
        assertThatThrownBy(() -> locks.acquire(" ")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("key must not be blank");
        assertThatThrownBy(() -> locks.tryAcquire("a{b}", LockOptions.defaults()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("braces");
        assertThatThrownBy(() -> locks.acquire("ok", null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("options must not be null");
        assertThatThrownBy(() -> locks.acquireAll(List.of(), LockOptions.defaults()))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keys must not be empty");
        assertThat(locks.tryAcquire("ok")).hasValueSatisfying(LockHandle::release);
    }
}
