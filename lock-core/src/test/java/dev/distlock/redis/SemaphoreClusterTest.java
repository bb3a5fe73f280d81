package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * Semaphores on a real Redis Cluster: every key of a semaphore in its key's slot, a waiter of another service woken by
 * the release's sharded message on that slot's master, and watchdog renewal of permits on every master.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SemaphoreClusterTest {

    private final RedisServers servers = RedisServers.create();

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<RedisLockService> services = new ArrayList<>();

    private ClusterTopology cluster;

    @BeforeAll
    void startCluster() {
        this.cluster = this.servers.startCluster(3, 0);
    }

    @AfterAll
    void stop() {
        this.services.forEach(RedisLockService::close);
        this.factories.forEach(LettuceConnectionFactory::destroy);
        this.servers.close();
    }

    private RedisLockService service(Duration watchdogLease) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisClusterConfiguration(this.cluster.seedNodes()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        this.factories.add(factory);
        RedisLockService service = RedisLockService.builder(new StringRedisTemplate(factory))
            .restartGrace(Duration.ZERO)
            .watchdogLease(watchdogLease)
            .build();
        this.services.add(service);
        return service;
    }

    @Test
    void permitsOnEveryMasterAreRenewedAndAReleaseWakesAWaiterOfAnotherService() throws Exception {
        RedisLockService holder = service(Duration.ofMillis(600));
        RedisLockService waiter = service(Duration.ofSeconds(5));
        LockOptions one = LockOptions.defaults().withPermits(1);
        List<String> keys = keysOnEveryMaster();
        List<LockHandle> held = new ArrayList<>();
        for (String key : keys) {
            held.add(holder.acquire(key, one));
        }
        long start = System.nanoTime();
        Await.until(Duration.ofSeconds(10), () -> {
            assertThat(held).allMatch(LockHandle::isHeld);
            return System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(2000);
        }, "more than three leases passed with every permit held");

        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            CompletableFuture<LockHandle> waiting = CompletableFuture
                .supplyAsync(() -> waiter.acquire(key, one.withWaitTime(Duration.ofSeconds(30))));
            RedisNode master = this.cluster.masterForKey("distlock:{" + key + "}:sem:leases");
            Await.until(Duration.ofSeconds(10), () -> master.call("PUBSUB", "SHARDNUMSUB",
                    "distlock:{" + key + "}:sem:released").endsWith("\n1"), "the waiter subscribes on its master");
            held.get(i).release();
            LockHandle next = waiting.get(20, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(held.get(i).fencingToken());
            next.release();
            assertThat(master.call("EXISTS", "distlock:{" + key + "}:sem:leases")).isEqualTo("0");
        }
    }

    /** One semaphore key per master, in master order. */
    private List<String> keysOnEveryMaster() {
        List<String> keys = new ArrayList<>();
        for (RedisNode master : this.cluster.masters()) {
            int i = 0;
            while (this.cluster.masterForKey("distlock:{sem-" + i + "}:sem:leases") != master) {
                i++;
            }
            keys.add("sem-" + i);
        }
        return keys;
    }
}
