package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TcpProxy;

/** Network faults between client and Redis through a TCP proxy on loopback: latency, dropped connections, blackhole. */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkFaultTest {

    private static final Duration LEASE = Duration.ofMillis(1200);

    private RedisNode redis;

    private TcpProxy proxy;

    private Clients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.proxy = TcpProxy.start(redis.port());
        this.clients = new Clients();
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
        this.proxy.close();
    }

    private RedisLockService throughProxy() {
        return this.clients.service(this.proxy.port(), Duration.ofMillis(600), b -> b.watchdogLease(LEASE));
    }

    @Test
    void withAddedLatencyTheLockStillExcludesAndRenews() throws Exception {
        this.proxy.latency(Duration.ofMillis(20));
        RedisLockService slow = throughProxy();
        RedisLockService direct = this.clients.service(this.redis.port(), Duration.ofSeconds(2), b -> b);
        StringRedisTemplate data = this.clients.template(this.redis.port(), Duration.ofSeconds(2));
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            RedisLockService locks = (t % 2 == 0) ? slow : direct;
            workers.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 15; i++) {
                    try (LockHandle lock = locks.acquire("slow-net",
                            LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)))) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        String value = data.opsForValue().get("count");
                        data.opsForValue().set("count", Integer.toString(value == null ? 1 : Integer.parseInt(value) + 1));
                        inside.decrementAndGet();
                    }
                }
            }));
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture[0])).get(50, TimeUnit.SECONDS);
        assertThat(overlaps).hasValue(0);
        assertThat(data.opsForValue().get("count")).isEqualTo("60");

        LockHandle held = slow.acquire("renewed-slowly");
        awaitLeases(3);
        assertThat(held.isHeld()).isTrue();
        held.release();
    }

    @Test
    void aDroppedConnectionReconnectsAndTheLeaseSurvives() throws Exception {
        RedisLockService locks = throughProxy();
        LockHandle held = locks.acquire("dropped");
        CountDownLatch lost = new CountDownLatch(1);
        held.onLeaseLost(reason -> lost.countDown());
        this.proxy.dropConnections();
        awaitLeases(3);
        assertThat(lost.getCount()).as("no loss reported").isEqualTo(1);
        assertThat(held.isHeld()).isTrue();
        assertThat(this.redis.lockField("distlock:{dropped}:lock", "owner")).isEqualTo(held.ownerToken());

        // a waiter subscribed before another drop still gets the lock after the release
        RedisLockService direct = this.clients.service(this.redis.port(), Duration.ofSeconds(2), b -> b);
        LockHandle other = direct.acquire("handoff");
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                () -> locks.acquire("handoff", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!this.redis.call("PUBSUB", "NUMSUB", "distlock:{handoff}:released").endsWith("\n1")
                && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        this.proxy.dropConnections();
        long releasedAt = System.nanoTime();
        other.release(); // its message may be published while the waiter's subscription is reconnecting
        assertThat(waiter.get(20, TimeUnit.SECONDS).isHeld()).isTrue();
        // the holder's lease had 30 s to run: the waiter checked again when its connection came back
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(10));
        held.release();
    }

    @Test
    void aBlackholeFailsCallsAsUnavailableAndLosesHeldLeasesAtTheirDeadline() throws Exception {
        RedisLockService locks = throughProxy();
        LockHandle held = locks.acquire("blackholed");
        CountDownLatch lost = new CountDownLatch(1);
        held.onLeaseLost(reason -> lost.countDown());

        this.proxy.blackhole(true);
        assertThatThrownBy(() -> locks.acquire("other")).isInstanceOf(LockUnavailableException.class);
        assertThat(lost.await(15, TimeUnit.SECONDS)).as("the holder is told").isTrue();
        assertThat(held.isHeld()).isFalse();

        // Healing: fresh connections carry commands again (requests sent into the blackhole are gone for good).
        this.proxy.blackhole(false);
        this.proxy.dropConnections();
        try (LockHandle again = locks.acquire("blackholed",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
            assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    private static void awaitLeases(int leases) throws InterruptedException {
        Thread.sleep(LEASE.multipliedBy(leases).toMillis()); // time must pass for renewals to matter
    }
}
