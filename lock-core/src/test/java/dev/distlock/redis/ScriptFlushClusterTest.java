package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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

import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * {@link ScriptFlushUnderLoadTest} on a 3-master Redis Cluster: {@code SCRIPT FLUSH} on every master in turn, again
 * and again, under load. No error reaches a caller, mutual exclusion holds, and each caller's calls run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptFlushClusterTest {

    private final RedisServers servers = RedisServers.create();

    private LettuceConnectionFactory factory;

    private RedisLockService locks;

    private ClusterTopology cluster;

    @BeforeAll
    void start() {
        this.cluster = this.servers.startCluster(3, 0);
        this.factory = new LettuceConnectionFactory(new RedisClusterConfiguration(this.cluster.seedNodes()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        this.factory.afterPropertiesSet();
        this.factory.start();
        this.locks = RedisLockService.builder(new StringRedisTemplate(this.factory))
            .restartGrace(Duration.ZERO)
            .build();
        // asks the cluster once whether it has sharded pub/sub (ShardedPubSub), which blocks: not on a Lettuce thread
        this.locks.acquire("warm-up").release();
    }

    @AfterAll
    void stop() {
        if (this.locks != null) {
            this.locks.close();
        }
        if (this.factory != null) {
            this.factory.destroy();
        }
        this.servers.close();
    }

    @Test
    void flushesOnEveryMasterUnderLoadReachNoCallerAndReorderNothing() throws Exception {
        int[] next = { 0 };
        ScriptFlushLoad load = new ScriptFlushLoad(this.locks, () -> {
            RedisNode master = this.cluster.masters().get(next[0]++ % this.cluster.masters().size());
            master.call("SCRIPT", "FLUSH");
        }, Duration.ofSeconds(6));
        load.run();

        assertThat(load.errors).as("errors that reached a caller").isEmpty();
        assertThat(load.overlaps.get()).as("two holders of one lock at once").isZero();
        assertThat(load.reordered.get()).as("a tryAcquire sent after a release ran before it").isZero();
        assertThat(load.flushes.get()).as("flushes").isGreaterThan(20);
        assertThat(load.cycles.get()).as("blocking cycles").isGreaterThan(50);
        assertThat(load.asyncCycles.get()).as("non-blocking cycles").isGreaterThan(50);
    }
}
