package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.TwemproxyTopology;

/**
 * Semaphores through a real Twemproxy (nutcracker) in front of two Redis shards, with {@code shardingProxy(true)}:
 * all keys of a semaphore share its hash tag, so each script runs on the one shard that holds them; there is no
 * pub/sub, so waiters poll. The limit holds across two services on semaphores of both shards, a waiter gets permits
 * soon after a release, and a permit deleted on its shard is reported lost. (Renewal of permits behind the proxy is in
 * {@link TwemproxyLockTest}.) Skipped, saying why, without nutcracker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SemaphoreTwemproxyTest {

    /** Long enough that only a release, never a lease's end, can let a waiter in within the test's bounds. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    private static final Duration WAIT = Duration.ofSeconds(25);

    private final RedisServers servers = RedisServers.create();

    private TwemproxyTopology proxy;

    private TopologyClients clients;

    @BeforeAll
    void startProxy() {
        assumeTrue(TwemproxyTopology.isAvailable(), TwemproxyTopology.SKIP_MESSAGE);
        this.proxy = this.servers.startTwemproxy(2);
    }

    @AfterAll
    void stopProxy() {
        this.servers.close();
    }

    @BeforeEach
    void setUp() {
        this.clients = new TopologyClients();
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
        if (this.proxy != null) {
            for (RedisNode shard : this.proxy.shards()) {
                shard.call("FLUSHALL");
            }
        }
    }

    @Test
    void theLimitHoldsAcrossServicesOnBothShardsAndAWaiterGetsPermitsSoonAfterARelease() throws Exception {
        RedisLockService first = service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService second = service(b -> b.watchdogLease(LONG_LEASE));
        for (LockMode mode : List.of(LockMode.SEMAPHORE, LockMode.FAIR_SEMAPHORE)) {
            for (String key : keysOnEveryShard(first, "exports-" + mode + "-")) {
                LockOptions three = LockOptions.defaults().withMode(mode).withPermits(3);
                LockHandle two = first.acquire(key, three.withPermits(3, 2));
                LockHandle one = second.acquire(key, three);
                RedisNode shard = this.proxy.shardHolding(leases(key));
                assertThat(shard.call("ZCARD", leases(key))).as("both holders of %s on one shard", key).isEqualTo("2");
                assertThat(second.tryAcquire(key, three)).as("a fourth permit of three (%s)", key).isEmpty();
                assertThat(first.tryAcquire(key, three)).as("nor from the other service (%s)", key).isEmpty();

                CompletableFuture<LockHandle> waiter = CompletableFuture
                    .supplyAsync(() -> second.acquire(key, three.withPermits(3, 2).withWaitTime(WAIT)));
                Await.until(Duration.ofSeconds(10),
                        () -> shard.lockField("distlock:{" + key + "}:sem:permits", "waiting") != null,
                        "the waiter of " + key + " waits in Redis");
                long releasedAt = System.nanoTime();
                two.release();
                LockHandle next = waiter.get(20, TimeUnit.SECONDS);
                assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("the waiter of %s polled", key)
                    .isLessThan(Duration.ofSeconds(10));
                assertThat(next.fencingToken()).isGreaterThan(Math.max(two.fencingToken(), one.fencingToken()));
                assertThat(first.tryAcquire(key, three)).as("three of three in use again (%s)", key).isEmpty();
                next.release();
                one.release();
                assertThat(shard.call("EXISTS", leases(key))).isEqualTo("0");
            }
        }
    }

    @Test
    void aPermitDeletedOnItsShardBehindTheHoldersBackIsReportedLost() {
        RedisLockService permits = service(b -> b.watchdogLease(Duration.ofMillis(1500)));
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        LockHandle permit = permits.acquire("deleted", LockOptions.defaults().withPermits(2));
        permit.onLeaseLost(lost::add);
        RedisNode shard = this.proxy.shardHolding(leases("deleted"));
        assertThat(shard).isNotNull();

        shard.call("ZREM", leases("deleted"), permit.ownerToken());

        Await.until(Duration.ofSeconds(10), () -> !lost.isEmpty(), "the lost permit was reported");
        assertThat(permit.isHeld()).isFalse();
        assertThat(lost.get(0).key()).isEqualTo("deleted");
        permits.acquire("deleted", LockOptions.defaults().withPermits(2, 2)).release();
    }

    private RedisLockService service(UnaryOperator<RedisLockServiceBuilder> settings) {
        return this.clients.service(this.clients.twemproxy(this.proxy), b -> settings.apply(b.shardingProxy(true)));
    }

    /** One key per shard, in shard order; found by taking a permit of each candidate and seeing where it lands. */
    private List<String> keysOnEveryShard(RedisLockService permits, String prefix) {
        return TwemproxyShards.keysOnEveryShard(this.proxy, prefix, key -> {
            try (LockHandle permit = permits.acquire(key, LockOptions.defaults().withPermits(1))) {
                return this.proxy.shardHolding(leases(key));
            }
        });
    }

    /** The sorted set of a semaphore's leases: where the semaphore lives. */
    private static String leases(String key) {
        return "distlock:{" + key + "}:sem:leases";
    }
}
