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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.wakeup.Waiter;
import dev.distlock.test.Await;
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
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aReleaseWakesOnlyTheNextWaiter() throws Exception {
        // long waiter and watchdog leases, so that no periodic refresh or renewal runs a script during the hand-off
        RedisLockService holderSide = this.clients.service();
        StringRedisTemplate template = this.clients.template();
        RedisLockService waiterSide = this.clients.service(template, b -> b.waiterLease(Duration.ofSeconds(60)));
        // A connection's activation wakes every waiter (releases may have been missed); let both of the waiter
        // side's connections come up first: the shared one came up when the service was built (its eviction-policy
        // check), the subscription's comes up with verifyAccess. This listener runs after the service's.
        AtomicInteger activations = new AtomicInteger();
        ((LettuceConnectionFactory) template.getRequiredConnectionFactory()).getNativeClient()
            .getResources()
            .eventBus()
            .get()
            .filter(ConnectionActivatedEvent.class::isInstance)
            .subscribe(event -> activations.incrementAndGet());
        waiterSide.verifyAccess();
        Await.until(Duration.ofSeconds(10), () -> activations.get() >= 1, "the waiter side's connections are up");
        LockHandle holder = holderSide.acquire("baton", FAIR);
        int waiters = 4;
        List<CountDownLatch> acquired = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        CountDownLatch finish = new CountDownLatch(1);
        for (int i = 0; i < waiters; i++) {
            int arrival = i;
            CountDownLatch got = new CountDownLatch(1);
            acquired.add(got);
            Thread thread = new Thread(() -> {
                try (LockHandle lock = waiterSide.acquire("baton", FAIR.withWaitTime(Duration.ofSeconds(50)))) {
                    got.countDown();
                    finish.await(50, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
            Await.until(Duration.ofSeconds(10), () -> queueLength("baton") == arrival + 1, "waiter queued");
        }
        Await.until(Duration.ofSeconds(10),
                () -> threads.stream().allMatch(thread -> LockSupport.getBlocker(thread) instanceof Waiter),
                "every waiter sleeps on its release subscription");
        this.redis.call("CONFIG", "RESETSTAT");
        holder.release();
        assertThat(acquired.get(0).await(10, TimeUnit.SECONDS)).isTrue();
        // one script to release, one by the first waiter, whose grant names the second, and one by the second,
        // which learns the new holder's lease: the others were not woken to try
        Await.until(Duration.ofSeconds(10), () -> successfulScriptCalls() >= 3, "the second waiter re-checks");
        assertThat(successfulScriptCalls()).isEqualTo(3);
        assertThat(queueLength("baton")).isEqualTo(waiters - 1);
        finish.countDown();
        for (CountDownLatch got : acquired) {
            assertThat(got.await(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** EVAL and EVALSHA calls since the last CONFIG RESETSTAT, less those that failed (NOSCRIPT). */
    private long successfulScriptCalls() {
        long calls = 0;
        for (String line : this.redis.call("INFO", "commandstats").split("\\r?\\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += statistic(line, "calls") - statistic(line, "failed_calls");
            }
        }
        return calls;
    }

    private static long statistic(String line, String name) {
        Matcher matcher = Pattern.compile("[:,]" + name + "=(\\d+)").matcher(line);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
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
