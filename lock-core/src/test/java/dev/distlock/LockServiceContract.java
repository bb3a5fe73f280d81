package dev.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.abort;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
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
 * reentrancy, wait limits, fencing order, owner tokens, lost-lease reports, what closing a service leaves held, bad
 * input, and semaphores where the service offers them. A subclass supplies two independent services (as two processes
 * would have) and a way to make a held lock vanish from Redis. The in-memory kit (lock-test) runs it too, so that a
 * user's test that passes in memory passes on Redis on each of these points.
 */
public abstract class LockServiceContract {

    /** A service of its own, as a separate process would have; closed by the subclass after each test. */
    protected abstract LockService newService();

    /** Deletes the lock of {@code key} from Redis behind its holder's back (an eviction, a restart, a failover). */
    protected abstract void deleteLock(String key);

    /**
     * Whether the service offers semaphores ({@link LockOptions#withPermits}); one that does not must refuse them at
     * the call with {@link UnsupportedOperationException}, and the semaphore points are skipped for it.
     */
    protected boolean offersSemaphores() {
        return true;
    }

    /**
     * {@link LockInspection#inspect}: another service sees the holder (its grant's token, its process, its lease),
     * the holding service names its owner thread, and a released or vanished lock shows nothing.
     */
    @Test
    void inspectShowsAnotherServicesHolderAndNothingOnceTheLockIsGone() {
        LockService holding = newService();
        LockInspection other = inspection(newService());
        assertThat(other.inspect("contract:inspect")).isEmpty();
        LockHandle lock = holding.acquire("contract:inspect");
        // the holding instance's record is written off the lock's path, right after its first lock call
        Await.until(Duration.ofSeconds(5), () -> other.inspect("contract:inspect").get(0).holders().get(0).instance()
            .pid() != 0, "the holder's instance is known");
        assertThat(other.inspect("contract:inspect")).singleElement().satisfies(state -> {
            assertThat(state.mode()).isEqualTo(LockMode.EXCLUSIVE);
            assertThat(state.holders()).singleElement().satisfies(holder -> {
                assertThat(holder.fencingToken()).isEqualTo(lock.fencingToken());
                assertThat(holder.holdCount()).isEqualTo(1);
                assertThat(holder.leaseLeft()).isPositive();
                assertThat(holder.instance().pid()).isEqualTo(ProcessHandle.current().pid());
            });
        });
        assertThat(inspection(holding).inspect("contract:inspect").get(0).holders().get(0).owner())
            .isEqualTo("thread " + Thread.currentThread().getName());
        lock.release();
        assertThat(other.inspect("contract:inspect")).isEmpty();
        LockHandle lost = holding.acquire("contract:inspect");
        deleteLock("contract:inspect");
        assertThat(other.inspect("contract:inspect")).isEmpty();
        assertThatThrownBy(lost::release).isInstanceOf(LeaseLostException.class);
    }

    /**
     * The inspection of a service {@link #newService()} made: the service itself, unless a subclass wraps it (this
     * contract is shipped to lock-test in lock-core's test jar, without the wrappers).
     */
    protected LockInspection inspection(LockService service) {
        return (LockInspection) service;
    }

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

    /**
     * A fixed lease that runs out is the end the caller chose, not a loss reported by itself: nothing watches it. The
     * owner is told when it comes back for the lock, and its release fails.
     */
    @Test
    void aFixedLeaseThatRunsOutIsReportedToItsOwnerWhenItComesBack() {
        LockService locks = newService();
        LockService other = newService();
        LockHandle lock = locks.acquire("contract:ran-out", LockOptions.defaults().withLeaseTime(Duration.ofMillis(500)));
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        lock.onLeaseLost(lost::add);
        other.acquire("contract:ran-out", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))).release();
        assertThat(lock.isHeld()).isFalse();
        assertThat(lost).as("no report while the owner does not come back").isEmpty();
        LockHandle again = locks.acquire("contract:ran-out");
        Await.until(Duration.ofSeconds(10), () -> !lost.isEmpty(), "the owner is told when it comes back");
        assertThat(again.fencingToken()).isGreaterThan(lock.fencingToken());
        again.release();
        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class);
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

    @Test
    void ownerTokensArePerHoldSharedOnlyByReentrantAcquisitions() {
        LockService locks = newService();
        LockService other = newService();
        String first;
        try (LockHandle outer = locks.acquire("contract:owner-a");
                LockHandle inner = locks.acquire("contract:owner-a");
                LockHandle elsewhere = locks.acquire("contract:owner-b")) {
            first = outer.ownerToken();
            assertThat(first).isNotBlank();
            assertThat(inner.ownerToken()).as("a re-entry shares its hold's token").isEqualTo(first);
            assertThat(elsewhere.ownerToken()).as("another key's hold of the same owner").isNotEqualTo(first);
        }
        try (LockHandle again = locks.acquire("contract:owner-a");
                LockHandle ofOther = other.acquire("contract:owner-b")) {
            assertThat(again.ownerToken()).as("a new hold after the release").isNotEqualTo(first);
            assertThat(ofOther.ownerToken()).isNotEqualTo(first).isNotEqualTo(again.ownerToken());
        }
    }

    /**
     * A new key's first token is the clock in microseconds (as Redis's {@code TIME}): tokens keep increasing after the
     * lock's data is lost, so a resource that outlives the lock store never sees a token repeat.
     */
    @Test
    void fencingTokensStartAtTheClockAndKeepIncreasingAfterTheLockIsDeleted() {
        LockService locks = newService();
        String key = "contract:clock-" + UUID.randomUUID();
        long before = microsNow();
        long first;
        try (LockHandle lock = locks.acquire(key)) {
            first = lock.fencingToken();
        }
        long after = microsNow();
        long slack = Duration.ofSeconds(5).toNanos() / 1000; // the server's clock and this one, on one machine
        assertThat(first).isBetween(before - slack, after + slack);
        LockHandle second = locks.acquire(key);
        assertThat(second.fencingToken()).isGreaterThan(first);
        deleteLock(key);
        LockHandle third = newService().acquire(key);
        assertThat(third.fencingToken()).isGreaterThan(second.fencingToken());
        third.release();
    }

    /**
     * Closing a service is a process that stops: its locks are not released but stay held until their leases end, its
     * handles can still be released, its waiting callers stop with {@link IllegalStateException}, and so do new calls.
     */
    @Test
    void aClosedServicesLocksStayHeldUntilReleasedOrTheirLeaseEnds() throws Exception {
        LockService closing = newService();
        LockService other = newService();
        LockHandle fixed = closing.acquire("contract:closed-fixed",
                LockOptions.defaults().withLeaseTime(Duration.ofSeconds(2)));
        LockHandle watched = closing.acquire("contract:closed-watched");
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        watched.onLeaseLost(lost::add);
        close(closing);
        assertThatThrownBy(() -> closing.tryAcquire("contract:closed-other")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
        assertThat(other.tryAcquire("contract:closed-fixed")).isEmpty();
        assertThat(other.tryAcquire("contract:closed-watched")).isEmpty();
        assertThat(watched.isHeld()).isTrue();
        assertThat(lost).isEmpty();
        // the fixed lease ends by itself
        LockHandle next = other.acquire("contract:closed-fixed",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)));
        assertThat(next.fencingToken()).isGreaterThan(fixed.fencingToken());
        assertThat(fixed.isHeld()).isFalse();
        assertThatThrownBy(fixed::release).isInstanceOf(LeaseLostException.class);
        next.release();
        // the watchdog's lease outlasts the test, but a release after the close still frees it
        watched.release();
        assertThat(other.tryAcquire("contract:closed-watched")).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aCallerWaitingWhenItsServiceClosesStopsWithIllegalStateException() throws Exception {
        LockService locks = newService();
        LockService closing = newService();
        try (LockHandle held = locks.acquire("contract:closing")) {
            CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> closing
                .acquire("contract:closing", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))));
            long start = System.nanoTime();
            close(closing);
            assertThatThrownBy(() -> waiter.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void permitsAreSharedUpToTheLimitAndAreNeverReentrant() throws Exception {
        LockService first = semaphoreService();
        LockService second = newService();
        LockOptions two = LockOptions.defaults().withPermits(2);
        LockHandle one = first.acquire("contract:permits", two);
        LockHandle another = first.acquire("contract:permits", two); // the same thread again: a second permit
        assertThat(another.fencingToken()).isGreaterThan(one.fencingToken());
        assertThat(another.ownerToken()).isNotEqualTo(one.ownerToken());
        assertThat(second.tryAcquire("contract:permits", two)).isEmpty();
        assertThat(second.tryAcquire("contract:permits", two.withMode(LockMode.FAIR)))
            .as("a fair and a plain acquisition of one key share one semaphore").isEmpty();
        assertThat(second.tryAcquire("contract:permits", LockOptions.defaults().withPermits(3)))
            .as("each call counts against the limit it names").hasValueSatisfying(LockHandle::release);
        assertThat(second.tryAcquire("contract:permits")).as("a lock of the same key is another thing")
            .hasValueSatisfying(LockHandle::release);
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> second.acquire("contract:permits",
                two.withWaitTime(Duration.ofSeconds(30))));
        one.release();
        LockHandle third = waiter.get(30, TimeUnit.SECONDS);
        assertThat(third.fencingToken()).isGreaterThan(another.fencingToken());
        assertThat(first.tryAcquire("contract:permits", two)).isEmpty();
        another.release();
        third.release();
        assertThat(first.tryAcquire("contract:permits", LockOptions.defaults().withPermits(2, 2)))
            .hasValueSatisfying(LockHandle::release);
    }

    @Test
    void severalPermitsAtOnceAndADelayedReleaseKeepsThemCounted() {
        LockService locks = semaphoreService();
        LockOptions five = LockOptions.defaults().withPermits(5, 3);
        LockHandle three = locks.acquire("contract:several", five);
        assertThat(locks.tryAcquire("contract:several", five)).isEmpty();
        LockHandle two = locks.tryAcquire("contract:several", LockOptions.defaults().withPermits(5, 2)).orElseThrow();
        assertThat(locks.tryAcquire("contract:several", LockOptions.defaults().withPermits(5))).isEmpty();
        three.releaseAfter(Duration.ofMinutes(1));
        assertThat(three.isHeld()).isFalse();
        assertThat(locks.tryAcquire("contract:several", LockOptions.defaults().withPermits(5))).as("kept for the delay")
            .isEmpty();
        two.release();
        assertThat(locks.tryAcquire("contract:several", LockOptions.defaults().withPermits(5, 2)))
            .hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aPermitWaitEndsWithTheTimeoutAndAFixedLeaseGivesThePermitBack() {
        LockService locks = semaphoreService();
        LockService other = newService();
        LockOptions one = LockOptions.defaults().withPermits(1);
        LockHandle permit = locks.acquire("contract:permit-lease", one.withLeaseTime(Duration.ofSeconds(2)));
        long start = System.nanoTime();
        assertThatThrownBy(() -> other.acquire("contract:permit-lease", one.withWaitTime(Duration.ofMillis(300))))
            .isInstanceOf(LockTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(permit.isHeld()).isTrue();
        LockHandle next = other.acquire("contract:permit-lease", one.withWaitTime(Duration.ofSeconds(20)));
        assertThat(next.fencingToken()).isGreaterThan(permit.fencingToken());
        assertThat(permit.isHeld()).isFalse();
        assertThatThrownBy(permit::release).isInstanceOf(LeaseLostException.class);
        next.release();
    }

    @Test
    void aClosedServicesPermitsStayCountedUntilReleased() throws Exception {
        LockService closing = semaphoreService();
        LockService other = newService();
        LockOptions one = LockOptions.defaults().withPermits(1);
        LockHandle permit = closing.acquire("contract:closed-permit", one);
        close(closing);
        assertThat(other.tryAcquire("contract:closed-permit", one)).isEmpty();
        assertThat(permit.isHeld()).isTrue();
        permit.release();
        assertThat(other.tryAcquire("contract:closed-permit", one)).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aSemaphoreWithoutItsLimitFailsAtTheCall() {
        LockService locks = semaphoreService();
        assertThatThrownBy(() -> locks.acquire("contract:no-limit", LockOptions.defaults().withMode(LockMode.SEMAPHORE)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs its limit");
        assertThatThrownBy(() -> locks.tryAcquire("contract:no-limit",
                LockOptions.defaults().withMode(LockMode.FAIR_SEMAPHORE)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs its limit");
        assertThat(locks.tryAcquire("contract:no-limit", LockOptions.defaults().withMode(LockMode.FAIR).withPermits(1)))
            .hasValueSatisfying(LockHandle::release);
    }

    /**
     * A service for a semaphore point; for a service without semaphores, checks that it refuses them at the call and
     * skips the point.
     */
    private LockService semaphoreService() {
        LockService service = newService();
        if (!offersSemaphores()) {
            assertThatThrownBy(() -> service.tryAcquire("contract:refused", LockOptions.defaults().withPermits(2)))
                .isInstanceOf(UnsupportedOperationException.class);
            abort("this service offers no semaphores, and refuses them at the call");
        }
        return service;
    }

    private static void close(LockService service) throws Exception {
        ((AutoCloseable) service).close();
    }

    private static long microsNow() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
