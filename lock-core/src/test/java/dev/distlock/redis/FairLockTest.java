package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Fair locks: granted in arrival order across clients; waiters that give up or die do not block the queue. */
@RedisTest
class FairLockTest {

    private static final LockOptions FAIR = LockOptions.defaults().withMode(LockMode.FAIR);

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
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void waitersFromTwoClientsGetTheLockInArrivalOrder() throws Exception {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        LockHandle holder = first.acquire("turn", FAIR);
        int waiters = 10;
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int arrival = i;
            RedisLockService locks = (i % 2 == 0) ? second : first;
            CompletableFuture<Void> finished = new CompletableFuture<>();
            done.add(finished);
            new Thread(() -> {
                try (LockHandle lock = locks.acquire("turn", FAIR.withWaitTime(Duration.ofSeconds(40)))) {
                    order.add(arrival);
                    tokens.add(lock.fencingToken());
                    finished.complete(null);
                }
                catch (Throwable ex) {
                    finished.completeExceptionally(ex);
                }
            }).start();
            // the next waiter starts only once this one is queued in Redis, which fixes the arrival order
            Await.until(Duration.ofSeconds(10), () -> queueLength("turn") == arrival + 1, "waiter " + arrival
                    + " is queued");
        }
        holder.release();
        CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(50, TimeUnit.SECONDS);
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(tokens).isSorted().doesNotHaveDuplicates().allMatch(token -> token > holder.fencingToken());
        assertThat(queueLength("turn")).isZero();
    }

    @Test
    void aWaiterThatTimesOutLeavesTheQueueAndTheNextOneGetsTheLock() throws Exception {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle holder = locks.acquire("desk", FAIR);
        CompletableFuture<Throwable> impatient = CompletableFuture.supplyAsync(() -> {
            try {
                other.acquire("desk", FAIR.withWaitTime(Duration.ofSeconds(2))).release();
                return null;
            }
            catch (Throwable ex) {
                return ex;
            }
        });
        Await.until(Duration.ofSeconds(10), () -> queueLength("desk") == 1, "the impatient waiter is queued");
        CompletableFuture<Long> patient = CompletableFuture.supplyAsync(() -> {
            try (LockHandle lock = locks.acquire("desk", FAIR.withWaitTime(Duration.ofSeconds(30)))) {
                return lock.fencingToken();
            }
        });
        Await.until(Duration.ofSeconds(10), () -> queueLength("desk") == 2, "the patient waiter is queued");

        assertThat(impatient.get(10, TimeUnit.SECONDS)).isInstanceOf(LockTimeoutException.class);
        assertThat(queueLength("desk")).as("the impatient waiter left at once").isEqualTo(1);
        holder.release();
        assertThat(patient.get(10, TimeUnit.SECONDS)).isGreaterThan(holder.fencingToken());
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aKilledWaiterHoldsUpTheQueueOnlyForTheWaiterLease() throws Exception {
        Duration waiterLease = Duration.ofSeconds(1);
        RedisLockService locks = this.clients.service(b -> b.waiterLease(waiterLease));
        RedisLockService dying = this.clients.service(b -> b.waiterLease(waiterLease));
        LockHandle holder = locks.acquire("pump", FAIR);
        CompletableFuture<Throwable> killed = CompletableFuture.supplyAsync(() -> {
            try {
                dying.acquire("pump", FAIR.withWaitTime(Duration.ofSeconds(30)));
                return null;
            }
            catch (Throwable ex) {
                return ex;
            }
        });
        Await.until(Duration.ofSeconds(10), () -> queueLength("pump") == 1, "the doomed waiter is queued");
        CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
                () -> locks.acquire("pump", FAIR.withWaitTime(Duration.ofSeconds(30))));
        Await.until(Duration.ofSeconds(10), () -> queueLength("pump") == 2, "the next waiter is queued behind it");

        dying.close(); // its process is gone: it neither takes the lock nor leaves the queue
        assertThat(killed.get(10, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class);
        assertThat(queueLength("pump")).isEqualTo(2);
        assertThat(locks.tryAcquire("pump", FAIR.withOwner(new Object()))).isEmpty();
        long releasedAt = System.nanoTime();
        holder.release(); // wakes the dead waiter, which is first; the next one gets in once its place lapses

        LockHandle lock = next.get(20, TimeUnit.SECONDS);
        // bounded by the dead waiter's place (1 s) plus one refresh period, far below the 30 s wait
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(10));
        assertThat(lock.isHeld()).isTrue();
        assertThat(queueLength("pump")).isZero();
        lock.release();
    }

    @Test
    void aFreeLockIsRefusedToANewcomerWhileOthersAreQueued() {
        RedisLockService locks = this.clients.service();
        this.redis.call("ZADD", "distlock:{line}:fair:queue", "1", "someone-waiting");
        this.redis.call("ZADD", "distlock:{line}:fair:places", Long.toString(redisMillis() + 60_000),
                "someone-waiting");
        assertThat(locks.tryAcquire("line", FAIR)).isEmpty();
        assertThatThrownBy(() -> locks.acquire("line", FAIR.withWaitTime(Duration.ofMillis(300))))
            .isInstanceOf(LockTimeoutException.class);
        assertThat(queueLength("line")).as("the newcomer that gave up left the queue").isEqualTo(1);
        this.redis.call("DEL", "distlock:{line}:fair:queue", "distlock:{line}:fair:places");
        try (LockHandle lock = locks.tryAcquire("line", FAIR).orElseThrow()) {
            LockHandle again = locks.tryAcquire("line", FAIR).orElseThrow(); // reentrant for the same thread
            assertThat(again.fencingToken()).isEqualTo(lock.fencingToken());
            again.release();
            assertThat(lock.isHeld()).isTrue();
        }
    }

    @Test
    void aLostFairLeaseIsReportedAndTokensIncrease() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        RedisLockService other = this.clients.service();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            try (LockHandle lock = ((i % 2 == 0) ? locks : other).acquire("fenced", FAIR)) {
                tokens.add(lock.fencingToken());
            }
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();

        LockHandle lock = locks.acquire("fenced", FAIR);
        CountDownLatch lost = new CountDownLatch(1);
        lock.onLeaseLost(reason -> lost.countDown());
        this.redis.call("DEL", "distlock:{fenced}:fair:lock");
        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isHeld()).isFalse();
        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class);
        try (LockHandle next = other.acquire("fenced", FAIR)) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
    }

    @Test
    void badInputForTheNewModesFailsBeforeAnythingReachesRedis() {
        RedisLockService locks = this.clients.service();
        assertThatThrownBy(() -> LockOptions.defaults().withMode(null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("mode must not be null");
        for (LockMode mode : LockMode.values()) {
            LockOptions options = LockOptions.defaults().withMode(mode);
            assertThatThrownBy(() -> locks.acquire("a{b}", options)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not contain braces");
            assertThatThrownBy(() -> locks.tryAcquire(" ", options)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not be blank");
            assertThatThrownBy(() -> locks.acquireAll(List.of("ok", "bad\n"), options))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keys[1] is bad");
        }
        assertThatThrownBy(() -> RedisLockService.builder(this.clients.template()).waiterLease(Duration.ofMillis(10)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("waiterLease");
        assertThat(this.redis.call("DBSIZE")).as("nothing written to Redis").isEqualTo("0");
    }

    private long queueLength(String key) {
        return Long.parseLong(this.redis.call("ZCARD", "distlock:{" + key + "}:fair:queue"));
    }

    private long redisMillis() {
        String[] time = this.redis.call("TIME").split("\n");
        return Long.parseLong(time[0]) * 1000 + Long.parseLong(time[1]) / 1000;
    }
}
