package dev.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.distlock.HeldLock;
import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockHolder;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockEvent;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockStatus;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.NotLockOwnerException;
import dev.distlock.test.Await;

/** What the in-memory service does beyond the shared contract: the lock types, leases, key sets and async side. */
class InMemoryLockServiceTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final InMemoryLockService locks = this.store.newService();

    private final InMemoryLockService other = this.store.newService();

    @AfterEach
    void close() {
        this.locks.close();
        this.other.close();
    }

    private static LockOptions mode(LockMode mode) {
        return LockOptions.defaults().withMode(mode);
    }

    @Test
    void readersShareAndAWaitingWriterHoldsBackNewReaders() throws Exception {
        LockHandle reader = this.locks.acquire("doc:1", mode(LockMode.READ));
        LockHandle secondReader = this.other.acquire("doc:1", mode(LockMode.READ));
        CompletableFuture<LockHandle> writer = this.other.async().acquire("doc:1",
                mode(LockMode.WRITE).withWaitTime(DEADLINE));
        Await.until(DEADLINE, () -> this.other.tryAcquire("doc:1", mode(LockMode.READ).withOwner("late")).isEmpty(),
                "the waiting writer holds back a new reader");
        assertThat(writer).isNotDone();
        reader.release();
        secondReader.release();
        LockHandle written = writer.get(10, TimeUnit.SECONDS);
        assertThat(this.locks.tryAcquire("doc:1", mode(LockMode.READ))).isEmpty();
        written.release();
        assertThat(this.locks.tryAcquire("doc:1", mode(LockMode.READ))).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void theWriterMayReadButAReaderIsNeverUpgraded() {
        try (LockHandle write = this.locks.acquire("doc:2", mode(LockMode.WRITE));
                LockHandle read = this.locks.acquire("doc:2", mode(LockMode.READ))) {
            assertThat(read.isHeld()).isTrue();
            assertThat(this.other.tryAcquire("doc:2", mode(LockMode.READ))).isEmpty();
        }
        LockHandle read = this.locks.acquire("doc:2", mode(LockMode.READ));
        // as the Redis service: two readers upgrading at once would wait for each other
        assertThatThrownBy(() -> this.locks.tryAcquire("doc:2", mode(LockMode.WRITE)))
            .isInstanceOf(IllegalStateException.class).hasMessageContaining("read lock");
        read.release();
        assertThat(this.locks.tryAcquire("doc:2", mode(LockMode.WRITE))).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aFairLockIsGrantedInArrivalOrder() throws Exception {
        LockHandle holder = this.locks.acquire("queue:1", mode(LockMode.FAIR));
        LockOptions waiting = mode(LockMode.FAIR).withWaitTime(DEADLINE);
        CompletableFuture<LockHandle> first = this.other.async().acquire("queue:1", waiting);
        CompletableFuture<LockHandle> second = this.locks.async().acquire("queue:1", waiting);
        CompletableFuture<LockHandle> third = this.other.async().acquire("queue:1", waiting);
        holder.release();
        LockHandle granted = first.get(10, TimeUnit.SECONDS);
        assertThat(second).isNotDone();
        assertThat(third).isNotDone();
        granted.release();
        second.get(10, TimeUnit.SECONDS).release();
        third.get(10, TimeUnit.SECONDS).release();
        assertThat(this.store.isLocked("queue:1")).isFalse();
    }

    @Test
    void aFixedLeaseRunsOutFreesTheLockAndFailsTheRelease() {
        LockHandle lock = this.locks.acquire("lease:1", LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)));
        assertThat(lock.leaseDeadline()).isBefore(Instant.now().plusMillis(250));
        LockHandle next = this.other.acquire("lease:1", LockOptions.defaults().withWaitTime(DEADLINE));
        assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        assertThat(lock.isHeld()).isFalse();
        assertThatThrownBy(lock::release).isInstanceOf(NotLockOwnerException.class);
        next.release();
    }

    @Test
    void aWatchdogReentryOutlastsAFixedLeaseWhichComesBackInForceAtItsRelease() {
        Instant fixedEnd = Instant.now().plusMillis(100);
        LockHandle outer = this.locks.acquire("lease:2", LockOptions.defaults().withLeaseTime(Duration.ofMillis(100)));
        try (LockHandle inner = this.locks.acquire("lease:2")) {
            assertThat(this.locks.heldLocks()).singleElement()
                .satisfies(held -> assertThat(held.holdCount()).isEqualTo(2))
                .satisfies(held -> assertThat(held.watchdog()).isTrue());
            assertThat(this.locks.renewingCount()).isEqualTo(1);
            Await.until(DEADLINE, () -> Instant.now().isAfter(fixedEnd.plusMillis(50)), "the fixed lease is over");
            assertThat(outer.isHeld()).isTrue();
            assertThat(inner.leaseDeadline()).isAfter(Instant.now().plusSeconds(20));
        }
        // the outer acquisition's fixed lease is back in force, and long over
        assertThat(outer.isHeld()).isFalse();
        assertThatThrownBy(outer::release).isInstanceOf(LeaseLostException.class);
        assertThat(this.store.isLocked("lease:2")).isFalse();
    }

    @Test
    void releaseAfterKeepsTheLockFromEverybodyForTheDelay() {
        LockHandle lock = this.locks.acquire("job:nightly");
        lock.releaseAfter(Duration.ofMillis(300));
        assertThat(lock.isHeld()).isFalse();
        assertThat(this.locks.tryAcquire("job:nightly")).isEmpty();
        assertThat(this.other.acquire("job:nightly", LockOptions.defaults().withWaitTime(DEADLINE)))
            .satisfies(LockHandle::release);
    }

    @Test
    void aKeySetIsAllOrNothing() {
        LockHandle held = this.other.acquire("account:2");
        assertThat(this.locks.tryAcquireAll(List.of("account:1", "account:2"), LockOptions.defaults())).isEmpty();
        assertThat(this.store.isLocked("account:1")).isFalse();
        held.release();
        try (MultiLockHandle set = this.locks.acquireAll(List.of("account:2", "account:1", "account:2"),
                LockOptions.defaults())) {
            assertThat(set.members()).extracting(LockHandle::key).containsExactly("account:1", "account:2");
            assertThat(this.other.tryAcquire("account:1")).isEmpty();
        }
        assertThat(this.store.isLocked("account:1")).isFalse();
    }

    @Test
    void aCancelledAsyncAcquisitionStopsWaitingAndLeavesNothingHeld() {
        LockHandle held = this.locks.acquire("async:1");
        CompletableFuture<LockHandle> waiting = this.other.async().acquire("async:1",
                LockOptions.defaults().withWaitTime(DEADLINE));
        waiting.cancel(false);
        held.release();
        assertThat(this.store.isLocked("async:1")).isFalse();
        CompletableFuture<LockHandle> timedOut = this.other.async().acquire("async:1",
                LockOptions.defaults().withWaitTime(Duration.ofMillis(50)).withOwner("x"));
        assertThat(timedOut.join()).satisfies(LockHandle::release);
    }

    @Test
    void anInterruptedWaiterGivesUpWithItsFlagSet() throws Exception {
        LockHandle held = this.locks.acquire("interrupt:1");
        CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
            Thread.currentThread().interrupt();
            try {
                this.other.acquire("interrupt:1", LockOptions.defaults().withWaitTime(DEADLINE));
                return null;
            }
            catch (LockInterruptedException ex) {
                return Thread.interrupted() ? ex : new AssertionError("interrupt flag not set");
            }
        });
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(LockInterruptedException.class);
        held.release();
        assertThat(this.store.isLocked("interrupt:1")).isFalse();
    }

    @Test
    void anAsyncWaitEndsWithATimeoutAtTheWaitLimit() {
        LockHandle held = this.locks.acquire("async:2");
        CompletableFuture<LockHandle> waiting = this.other.async().acquire("async:2",
                LockOptions.defaults().withWaitTime(Duration.ofMillis(100)));
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(LockTimeoutException.class);
        held.release();
    }

    @Test
    void theListenerHearsOfGrantsReleasesAndLosses() {
        List<String> events = new CopyOnWriteArrayList<>();
        InMemoryLockService heard = InMemoryLockService.builder().store(this.store).listener(event -> {
            if (event instanceof LockEvent.Acquired acquired) {
                events.add("acquired " + acquired.lock().name());
            }
            else if (event instanceof LockEvent.Released released) {
                events.add("released " + released.lock().name());
            }
            else if (event instanceof LockEvent.LeaseLost lost) {
                events.add("lost " + lost.lock().name());
            }
        }).build();
        heard.acquire("stock:1").release();
        heard.acquire("stock:2");
        this.store.expire("stock:2");
        assertThat(events).containsExactly("acquired stock", "released stock", "acquired stock", "lost stock");
        heard.close();
    }

    @Test
    void aClosedServicesWatchedLockEndsOneWatchdogLeaseLaterWithoutALossReport() {
        InMemoryLockService closing = InMemoryLockService.builder().store(this.store)
            .watchdogLease(Duration.ofMillis(300)).build();
        LockHandle lock = closing.acquire("close:1");
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        lock.onLeaseLost(lost::add);
        long closedAt = System.nanoTime();
        closing.close();
        assertThat(lock.isHeld()).isTrue();
        assertThat(lock.leaseDeadline()).isBefore(Instant.now().plusMillis(301));
        assertThat(this.other.tryAcquire("close:1")).as("held until the lease ends").isEmpty();
        LockHandle next = this.other.acquire("close:1", LockOptions.defaults().withWaitTime(DEADLINE));
        assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        assertThat(lock.isHeld()).isFalse();
        assertThat(lost).as("no watchdog is left to report it").isEmpty();
        assertThatThrownBy(lock::release).isInstanceOf(NotLockOwnerException.class);
        assertThatThrownBy(() -> closing.tryAcquire("close:2")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
        next.release();
    }

    @Test
    void aNonBlockingWaiterOfAClosedServiceFailsWithIllegalStateException() {
        LockHandle held = this.other.acquire("close:3");
        CompletableFuture<LockHandle> waiting = this.locks.async().acquire("close:3",
                LockOptions.defaults().withWaitTime(DEADLINE));
        this.locks.close();
        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("closed while waiting");
        held.release();
    }

    @Test
    void fencingTokensComeFromTheClockSoANewStoreNeverRepeatsOne() {
        long first = this.locks.acquire("fence:1").fencingToken();
        InMemoryLockService fresh = new InMemoryLockStore().newService(); // as a Redis that lost its data
        try (LockHandle again = fresh.acquire("fence:1")) {
            assertThat(again.fencingToken()).isGreaterThan(first);
        }
        fresh.close();
        long permit = this.locks.acquire("fence:1", LockOptions.defaults().withPermits(2)).fencingToken();
        assertThat(permit).as("a semaphore's own tokens, from the clock too").isGreaterThan(first);
    }

    @Test
    void aReadHoldSharesItsOwnersWriteTokenAndNothingElseDoes() {
        try (LockHandle write = this.locks.acquire("token:1", mode(LockMode.WRITE));
                LockHandle read = this.locks.acquire("token:1", mode(LockMode.READ))) {
            assertThat(read.ownerToken()).isEqualTo(write.ownerToken()).matches("[0-9a-f]{32}");
            try (LockHandle exclusive = this.locks.acquire("token:1")) {
                assertThat(exclusive.ownerToken()).isNotEqualTo(write.ownerToken());
            }
        }
        try (LockHandle read = this.locks.acquire("token:1", mode(LockMode.READ));
                LockHandle otherRead = this.locks.acquire("token:1", mode(LockMode.READ).withOwner("batch"))) {
            assertThat(otherRead.ownerToken()).isNotEqualTo(read.ownerToken());
        }
    }

    @Test
    void fairPermitsAreGrantedInArrivalOrderAndABigAskHoldsBackThoseBehindIt() throws Exception {
        LockOptions fair = LockOptions.defaults().withMode(LockMode.FAIR).withPermits(3).withWaitTime(DEADLINE);
        LockHandle first = this.locks.acquire("sem:fair", fair);
        LockHandle second = this.locks.acquire("sem:fair", fair);
        CompletableFuture<LockHandle> big = this.other.async().acquire("sem:fair",
                LockOptions.defaults().withMode(LockMode.FAIR).withPermits(3, 2).withWaitTime(DEADLINE));
        CompletableFuture<LockHandle> small = this.other.async().acquire("sem:fair", fair);
        assertThat(this.locks.tryAcquire("sem:fair", fair)).as("nobody overtakes the queue").isEmpty();
        assertThat(small).as("one permit is free, but the waiter for two came first").isNotDone();
        assertThat(this.locks.tryAcquire("sem:fair", LockOptions.defaults().withPermits(3)))
            .as("a plain acquisition does not queue").hasValueSatisfying(LockHandle::release);
        first.release();
        LockHandle two = big.get(10, TimeUnit.SECONDS);
        assertThat(two.fencingToken()).isGreaterThan(second.fencingToken());
        assertThat(small).isNotDone();
        second.release();
        small.get(10, TimeUnit.SECONDS).release();
        two.release();
        assertThat(this.store.isLocked("sem:fair")).isFalse();
    }

    @Test
    void anExpiredSemaphoreReportsEveryPermitLostAndTheirReleasesFail() {
        LockHandle permit = this.locks.acquire("sem:lost", LockOptions.defaults().withPermits(2));
        LockHandle otherPermit = this.other.acquire("sem:lost", LockOptions.defaults().withPermits(2));
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        permit.onLeaseLost(lost::add);
        this.store.expire("sem:lost");
        assertThat(lost).singleElement().satisfies(reason -> assertThat(reason).hasMessageContaining("deleted"));
        assertThat(otherPermit.isHeld()).isFalse();
        LockHandle fresh = this.other.acquire("sem:lost", LockOptions.defaults().withPermits(2));
        assertThatThrownBy(permit::release).isInstanceOf(LeaseLostException.class)
            .isNotInstanceOf(NotLockOwnerException.class);
        fresh.release();
    }

    @Test
    void permitsShowInHeldLocksOnePerAcquisitionAndTheWatchdogKeepsThem() {
        LockHandle one = this.locks.acquire("sem:seen", LockOptions.defaults().withPermits(5, 2).withName("exports"));
        LockHandle two = this.locks.acquire("sem:seen",
                LockOptions.defaults().withMode(LockMode.FAIR).withPermits(5).withName("exports"));
        assertThat(this.locks.heldLocks()).extracting(HeldLock::mode, HeldLock::owner, HeldLock::holdCount)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(LockMode.SEMAPHORE,
                    "thread " + Thread.currentThread().getName(), 1),
                    org.assertj.core.groups.Tuple.tuple(LockMode.FAIR_SEMAPHORE,
                            "thread " + Thread.currentThread().getName(), 1));
        assertThat(this.locks.renewingCount()).isEqualTo(2);
        assertThat(one.leaseDeadline()).isAfter(Instant.now().plusSeconds(20));
        two.release();
        one.release();
        assertThat(this.locks.heldLocks()).isEmpty();
        assertThat(this.store.isLocked("sem:seen")).isFalse();
    }

    @Test
    void aCancelledPermitWaiterTakesNothing() {
        LockOptions one = LockOptions.defaults().withPermits(1);
        LockHandle held = this.locks.acquire("sem:cancel", one);
        CompletableFuture<LockHandle> waiting = this.other.async().acquire("sem:cancel", one.withWaitTime(DEADLINE));
        waiting.cancel(false);
        held.release();
        assertThat(this.store.isLocked("sem:cancel")).isFalse();
        assertThat(this.other.tryAcquire("sem:cancel", one)).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void heldLocksShowsTheServicesHoldsOldestFirst() {
        LockHandle first = this.locks.acquire("report:a", LockOptions.defaults().withName("report"));
        LockHandle second = this.locks.acquire("report:b", mode(LockMode.READ).withOwner("batch-7"));
        this.other.acquire("report:c").release();
        assertThat(this.locks.heldLocks()).extracting(HeldLock::key, HeldLock::owner, HeldLock::mode)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("report:a", "thread " + Thread.currentThread().getName(),
                    LockMode.EXCLUSIVE), org.assertj.core.groups.Tuple.tuple("report:b", "batch-7", LockMode.READ));
        second.release();
        first.release();
        assertThat(this.locks.heldLocks()).isEmpty();
        assertThat(this.locks.ping()).isZero();
    }

    /** inspect, as on Redis: readers and a waiting writer apart, semaphore holders with their permits. */
    @Test
    void inspectShowsReadersAWaitingWriterAndSemaphorePermits() throws Exception {
        LockHandle reader = this.locks.acquire("doc", LockOptions.defaults().withMode(LockMode.READ));
        CompletableFuture<LockHandle> writer = CompletableFuture.supplyAsync(() -> this.other.acquire("doc",
                LockOptions.defaults().withMode(LockMode.WRITE).withWaitTime(Duration.ofSeconds(10))));
        Await.until(Duration.ofSeconds(5), () -> this.locks.inspect("doc").size() == 2, "the writer waits");
        List<LockStatus> doc = this.other.inspect("doc");
        assertThat(doc).extracting(LockStatus::mode).containsExactly(LockMode.WRITE, LockMode.READ);
        assertThat(doc.get(0).holders()).isEmpty();
        assertThat(doc.get(0).waiters()).containsExactly(this.other.instance());
        assertThat(doc.get(1).holders()).singleElement().satisfies(holder -> {
            assertThat(holder.instance()).isEqualTo(this.locks.instance());
            assertThat(holder.fencingToken()).isEqualTo(reader.fencingToken());
        });
        reader.release();
        writer.get(10, TimeUnit.SECONDS).release();
        assertThat(this.locks.inspect("doc")).isEmpty();

        LockHandle two = this.locks.acquire("pool", LockOptions.defaults().withPermits(3, 2));
        LockHandle one = this.other.acquire("pool", LockOptions.defaults().withMode(LockMode.FAIR).withPermits(3));
        assertThat(this.locks.inspect("pool")).singleElement().satisfies(state -> {
            assertThat(state.mode()).isEqualTo(LockMode.SEMAPHORE);
            assertThat(state.holders()).extracting(LockHolder::permits).containsExactly(2, 1);
        });
        two.release();
        one.release();
    }
}
