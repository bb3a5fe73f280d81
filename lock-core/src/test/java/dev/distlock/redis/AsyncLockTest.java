package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The non-blocking side of {@link RedisLockService}, against a real Redis. */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsyncLockTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

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
    void twoServicesWithOnlyAsyncCallsNeverOverlapAndFencingTokensRise() {
        AsyncLockService first = this.clients.service().async();
        AsyncLockService second = this.clients.service().async();
        Executor later = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicLong lastToken = new AtomicLong();
        AtomicInteger tokensOutOfOrder = new AtomicInteger();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60));
        List<CompletableFuture<Integer>> cycles = new ArrayList<>();
        for (int i = 0; i < 200; i++) { // all in flight at once, from this one thread
            AsyncLockService locks = (i % 2 == 0) ? first : second;
            cycles.add(locks.executeLocked("shared", options, lock -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                if (lastToken.getAndSet(lock.fencingToken()) >= lock.fencingToken()) {
                    tokensOutOfOrder.incrementAndGet();
                }
                // the work ends on another thread, a millisecond later, while the lock is held
                return CompletableFuture.supplyAsync(() -> inside.decrementAndGet(), later);
            }));
        }
        CompletableFuture.allOf(cycles.toArray(CompletableFuture[]::new)).orTimeout(90, TimeUnit.SECONDS).join();
        assertThat(overlaps).hasValue(0);
        assertThat(tokensOutOfOrder).hasValue(0);
        assertThat(held("shared")).isFalse();
    }

    @Test
    void asyncCallersOfOneServiceTakeAHotKeyInTurn() {
        AsyncLockService locks = this.clients.service().async();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(30));
        int callers = 64;
        AtomicLong grants = new AtomicLong();
        AtomicLong mostOvertakes = new AtomicLong();
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int i = 0; i < callers; i++) { // each takes the lock 10 times, asking again as soon as it released it
            chains.add(cycles(locks, options, 10, grants, mostOvertakes));
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).orTimeout(100, TimeUnit.SECONDS).join();
        // in turn, each of the others takes the lock about once while a caller waits; a caller that asks again at once
        // overtakes those already waiting, over and over, until their pause ends (hundreds of grants)
        assertThat(mostOvertakes.get()).as("grants to others while one caller waited").isLessThan(2L * callers);
        assertThat(held("hot-async")).isFalse();
    }

    private static CompletableFuture<Void> cycles(AsyncLockService locks, LockOptions options, int left,
            AtomicLong grants, AtomicLong mostOvertakes) {
        long grantsBefore = grants.get();
        return locks.acquire("hot-async", options)
            .thenCompose(lock -> {
                long overtakes = grants.getAndIncrement() - grantsBefore;
                if (left < 10) { // after the first acquisition, whose order the start-up burst decides
                    mostOvertakes.accumulateAndGet(overtakes, Math::max);
                }
                return lock.releaseAsync();
            })
            .thenCompose(released -> (left > 1) ? cycles(locks, options, left - 1, grants, mostOvertakes)
                    : CompletableFuture.completedFuture(null));
    }

    @Test
    void waitingCallsHoldNoThread() {
        RedisLockService holderService = this.clients.service();
        AsyncLockService waiters = this.clients.service().async();
        LockHandle holder = holderService.acquire("busy", LockOptions.defaults());
        int threadsBefore = Thread.activeCount();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60));
        List<CompletableFuture<LockHandle>> pending = new ArrayList<>();
        List<CompletableFuture<Void>> cycles = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            CompletableFuture<LockHandle> acquiring = waiters.acquire("busy", options);
            pending.add(acquiring);
            cycles.add(acquiring.thenCompose(LockHandle::releaseAsync));
        }
        Await.until(LIMIT, () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{busy}:released").endsWith("1"),
                "the waiting service subscribes to the lock's release channel");
        assertThat(pending).noneMatch(CompletableFuture::isDone);
        assertThat(Thread.activeCount() - threadsBefore).as("threads started for 300 waiting calls").isLessThan(10);
        holder.release(); // each waiter is then woken by the release before it
        CompletableFuture.allOf(cycles.toArray(CompletableFuture[]::new)).orTimeout(60, TimeUnit.SECONDS).join();
    }

    @Test
    void aWaiterIsWokenByTheReleaseNotByTheLeaseEnd() {
        RedisLockService holderService = this.clients.service();
        AsyncLockService waiter = this.clients.service().async();
        LockHandle holder = holderService.acquire("wake", LockOptions.defaults().withLeaseTime(Duration.ofMinutes(5)));
        CompletableFuture<LockHandle> waiting = waiter.acquire("wake",
                LockOptions.defaults().withWaitTime(Duration.ofMinutes(2)));
        Await.until(LIMIT, () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{wake}:released").endsWith("1"),
                "the waiter subscribes");
        assertThat(waiting).isNotDone();
        holder.release();
        LockHandle granted = waiting.orTimeout(20, TimeUnit.SECONDS).join();
        assertThat(granted.fencingToken()).isGreaterThan(holder.fencingToken());
        granted.releaseAsync().join();
        assertThat(held("wake")).isFalse();
    }

    @Test
    void aFutureThatOutlivesTheWatchdogLeaseKeepsTheLock() {
        Duration lease = Duration.ofMillis(1500); // renewed every 500 ms: room for a loaded machine
        AsyncLockService locks = this.clients.service(builder -> builder.watchdogLease(lease)).async();
        RedisLockService other = this.clients.service();
        CompletableFuture<Void> outlived = new CompletableFuture<>();
        CompletableFuture<Long> work = locks.executeLocked("long", LockOptions.defaults(), lock -> outlived
            .thenApply(ignored -> {
                assertThat(lock.isHeld()).isTrue();
                return lock.fencingToken();
            }));
        Await.until(LIMIT, () -> held("long"), "the lock is taken");
        long start = System.nanoTime();
        Await.until(LIMIT, () -> {
            assertThat(other.tryAcquire("long", LockOptions.defaults())).as("another service's try").isEmpty();
            return System.nanoTime() - start > 3 * lease.toNanos();
        }, "three leases pass while the lock stays held");
        outlived.complete(null); // the work's stage completes only now, on this thread
        assertThat(work.orTimeout(60, TimeUnit.SECONDS).join()).isPositive();
        assertThat(other.tryAcquire("long", LockOptions.defaults())).isPresent();
    }

    @Test
    void cancellingPendingAcquisitionsLeavesNothingHeldForEveryType() {
        RedisLockService holderService = this.clients.service();
        // places in Redis would lapse only after a minute: a third caller gets in at once only if they were removed
        AsyncLockService waiters = this.clients.service(builder -> builder.waiterLease(Duration.ofMinutes(1))).async();
        AsyncLockService third = this.clients.service().async();
        for (LockMode mode : LockMode.values()) {
            String key = "cancel-" + mode.name().toLowerCase();
            LockOptions options = LockOptions.defaults().withMode(mode);
            options = mode.isSemaphore() ? options.withPermits(1) : options; // a semaphore of one permit
            LockHandle holder = holderService.acquire(key, (mode == LockMode.READ) ? options.withMode(LockMode.WRITE)
                    : options);
            CompletableFuture<LockHandle> pending = waiters.acquire(key, options.withWaitTime(Duration.ofMinutes(2)));
            String channel = ((RedisLockHandle) holder).hold.releaseChannel();
            Await.until(LIMIT, () -> !this.redis.call("PUBSUB", "NUMSUB", channel).endsWith(" 0"),
                    "the waiter of " + mode + " subscribes");
            assertThat(pending.cancel(false)).isTrue();
            holder.release();
            LockOptions other = (mode == LockMode.WRITE) ? options.withMode(LockMode.READ) : options;
            Await.until(LIMIT, () -> {
                Optional<LockHandle> taken = third.tryAcquire(key, other).join();
                taken.ifPresent(LockHandle::release);
                return taken.isPresent();
            }, "another caller takes the " + mode + " lock: the cancelled waiter kept nothing");
        }
    }

    @Test
    void aGrantThatLandsAfterTheCancelIsReleased() {
        AsyncLockService locks = this.clients.service().async();
        RedisLockService other = this.clients.service();
        for (int i = 0; i < 20; i++) {
            CompletableFuture<LockHandle> acquiring = locks.acquire("late", LockOptions.defaults());
            if (!acquiring.cancel(false)) {
                acquiring.join().release(); // the reply beat the cancel
            }
            Await.until(LIMIT, () -> {
                Optional<LockHandle> taken = other.tryAcquire("late", LockOptions.defaults());
                taken.ifPresent(LockHandle::release);
                return taken.isPresent();
            }, "the cancelled acquisition's lock is released");
        }
    }

    @Test
    void tryAcquireAndAZeroWaitReportAHeldLockDistinctly() {
        RedisLockService holderService = this.clients.service();
        AsyncLockService locks = this.clients.service().async();
        LockHandle holder = holderService.acquire("held", LockOptions.defaults());
        assertThat(locks.tryAcquire("held", LockOptions.defaults()).join()).isEmpty();
        assertThatThrownBy(() -> locks.acquire("held", LockOptions.defaults().withWaitTime(Duration.ZERO)).join())
            .isInstanceOf(CompletionException.class).hasCauseInstanceOf(LockTimeoutException.class);
        assertThatThrownBy(() -> locks.acquire("bad\nkey", LockOptions.defaults()))
            .isInstanceOf(IllegalArgumentException.class);
        holder.release();
        Optional<LockHandle> free = locks.tryAcquire("held", LockOptions.defaults()).join();
        assertThat(free).isPresent();
        free.get().releaseAsync().join();
    }

    @Test
    void aScriptFlushIsAnsweredByLoadingTheScriptAgain() {
        AsyncLockService locks = this.clients.service().async();
        locks.acquire("flushed", LockOptions.defaults()).join().releaseAsync().join();
        this.redis.call("SCRIPT", "FLUSH");
        LockHandle again = locks.acquire("flushed", LockOptions.defaults()).join();
        assertThat(held("flushed")).isTrue();
        again.releaseAsync().join();
        assertThat(held("flushed")).isFalse();
    }

    @Test
    void onlyAnExplicitOwnerReenters() {
        AsyncLockService locks = this.clients.service().async();
        Object owner = new Object();
        LockOptions mine = LockOptions.defaults().withOwner(owner).withWaitTime(Duration.ZERO);
        LockHandle outer = locks.acquire("owned", mine).join();
        LockHandle inner = locks.acquire("owned", mine).join();
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(locks.tryAcquire("owned", LockOptions.defaults()).join())
            .as("a call without an owner is its own owner").isEmpty();
        inner.releaseAsync().join();
        assertThat(outer.isHeld()).isTrue();
        outer.releaseAsync().join();
        assertThat(held("owned")).isFalse();
    }

    @Test
    void readersShareAndAWriterWaitsForThem() {
        AsyncLockService locks = this.clients.service().async();
        LockOptions read = LockOptions.defaults().withMode(LockMode.READ);
        LockHandle reader1 = locks.acquire("doc", read).join();
        LockHandle reader2 = locks.acquire("doc", read).join();
        CompletableFuture<LockHandle> writer = locks.acquire("doc",
                LockOptions.defaults().withMode(LockMode.WRITE).withWaitTime(Duration.ofMinutes(1)));
        reader1.releaseAsync().join();
        assertThat(writer).isNotDone();
        reader2.releaseAsync().join();
        writer.orTimeout(30, TimeUnit.SECONDS).join().releaseAsync().join();
    }

    @Test
    void aKeySetIsTakenWholeOrNotAtAll() {
        RedisLockService holderService = this.clients.service();
        AsyncLockService locks = this.clients.service().async();
        LockHandle holder = holderService.acquire("b", LockOptions.defaults());
        assertThatThrownBy(() -> locks.acquireAll(List.of("c", "a", "b"),
                LockOptions.defaults().withWaitTime(Duration.ofMillis(300))).join())
            .hasCauseInstanceOf(LockTimeoutException.class);
        Await.until(LIMIT, () -> !held("a"), "the key taken before the held one is released");
        holder.release();
        MultiLockHandle set = locks.acquireAll(List.of("c", "a", "b"), LockOptions.defaults()).join();
        assertThat(set.members()).extracting(LockHandle::key).containsExactly("a", "b", "c");
        set.releaseAsync().join();
        assertThat(held("a") || held("b") || held("c")).isFalse();
    }

    /** Whether the exclusive lock of {@code key} has an owner in Redis (a freed lock keeps its hash a while). */
    private boolean held(String key) {
        return this.redis.lockField("distlock:{" + key + "}:lock", "owner") != null;
    }
}
