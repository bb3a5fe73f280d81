package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * The auto-configured LockService on a Redis Cluster that Boot's own {@code spring.data.redis.cluster.nodes} names,
 * and the topology properties {@code distlock.wait-strategy}, {@code distlock.sharding-proxy} and
 * {@code distlock.replica-acknowledgements}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisClusterAutoConfigurationTest {

    private final RedisServers servers = RedisServers.create();

    private ClusterTopology cluster;

    @BeforeAll
    void startCluster() {
        this.cluster = this.servers.startCluster(3, 0);
    }

    @AfterAll
    void stopCluster() {
        this.servers.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                    BootAutoConfigurations.DATA_REDIS, DistributedLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", this.cluster.seedNodes()));
    }

    @Test
    void theLockServiceWorksOnTheClusterThatSpringDataRedisClusterNodesNames() {
        runner().run(context -> {
            assertThat(context).hasNotFailed(); // the startup check passed on the cluster
            assertThat(context.getBean(LettuceConnectionFactory.class).isClusterAware()).isTrue();
            LockService locks = context.getBean(LockService.class);
            for (int i = 0; i < 12; i++) {
                String key = "boot-" + i;
                try (LockHandle lock = locks.acquire(key)) {
                    RedisNode master = this.cluster.masterForKey("distlock:{" + key + "}:lock");
                    assertThat(master.lockField("distlock:{" + key + "}:lock", "owner"))
                        .isEqualTo(lock.ownerToken());
                }
            }

            // a waiter subscribes by sharded pub/sub on the lock's master and is woken by the release
            String channel = "distlock:{boot-wait}:released";
            RedisNode owner = this.cluster.masterForKey(channel);
            LockHandle held = locks.acquire("boot-wait");
            CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> locks.acquire("boot-wait",
                    LockOptions.defaults().withOwner(new Object()).withWaitTime(Duration.ofSeconds(20))));
            Await.until(Duration.ofSeconds(10), () -> owner.call("PUBSUB", "SHARDNUMSUB", channel).endsWith("\n1"),
                    "the waiter subscribed to " + channel + " with SSUBSCRIBE on " + owner);
            held.release();
            waiter.get(15, TimeUnit.SECONDS).release();
        });
    }

    @Test
    void pollingOnTheClusterSubscribesNothing() {
        runner().withPropertyValues("distlock.wait-strategy=polling").run(context -> {
            assertThat(context).hasNotFailed();
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.acquire("boot-poll");
            CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> locks.acquire("boot-poll",
                    LockOptions.defaults().withOwner(new Object()).withWaitTime(Duration.ofSeconds(20))));
            held.release();
            waiter.get(15, TimeUnit.SECONDS).release();
            for (RedisNode master : this.cluster.masters()) {
                assertThat(master.call("PUBSUB", "SHARDCHANNELS")).isEmpty();
                assertThat(master.call("PUBSUB", "CHANNELS")).isEmpty();
            }
        });
    }

    @Test
    void replicaAcknowledgementsAreAllowedOnTheClusterAndAGrantNoReplicaAcknowledgedIsUndone() {
        // this cluster has no replicas, so that no grant can be acknowledged
        runner().withPropertyValues("distlock.replica-acknowledgements.replicas=1",
                "distlock.replica-acknowledgements.timeout=50ms").run(context -> {
            assertThat(context).hasNotFailed();
            LockService locks = context.getBean(LockService.class);
            assertThatThrownBy(() -> locks.acquire("boot-acknowledged")).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("only 0 of the 1 replicas");
            String lock = "distlock:{boot-acknowledged}:lock";
            assertThat(this.cluster.masterForKey(lock).lockField(lock, "owner")).as("the grant was undone")
                .isNull();
        });
    }

    @Test
    void aShardingProxyIsNoClusterAndPassesNoPubSub() {
        runner().withPropertyValues("distlock.sharding-proxy=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("not for a Redis Cluster");
        });
        runner().withPropertyValues("distlock.sharding-proxy=true", "distlock.wait-strategy=pubsub").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasStackTraceContaining("Property distlock.wait-strategy with "
                    + "value 'PUBSUB' is invalid: distlock.wait-strategy PUBSUB does not work behind a sharding proxy");
        });
    }
}
