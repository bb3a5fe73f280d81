package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.TlsFiles;

/**
 * The auto-configured LockService on a TLS-only Redis Cluster (client, bus and replication over TLS, mutual TLS)
 * through Boot's {@code spring.data.redis.cluster.nodes} and {@code spring.data.redis.ssl.bundle}: locks on every master and a
 * sharded pub/sub wake-up.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisClusterTlsTest {

    private final RedisServers servers = RedisServers.create();

    private TlsFiles files;

    private ClusterTopology cluster;

    @BeforeAll
    void startCluster() {
        assumeTrue(TlsFiles.isAvailable(), TlsFiles.SKIP_MESSAGE);
        this.files = TlsFiles.create();
        this.cluster = this.servers.startCluster(3, 0, RedisNodeConfig.defaults().tls(this.files, true));
    }

    @AfterAll
    void stopCluster() {
        this.servers.close();
    }

    @Test
    void locksAndShardedWakeUpsWorkOnATlsOnlyCluster() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                    SslAutoConfiguration.class, BootAutoConfigurations.DATA_REDIS,
                    DistributedLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", this.cluster.seedNodes()),
                    "spring.data.redis.ssl.bundle=cluster", "spring.data.redis.timeout=2s",
                    "spring.ssl.bundle.pem.cluster.truststore.certificate=file:" + this.files.caCertificate(),
                    "spring.ssl.bundle.pem.cluster.keystore.certificate=file:" + this.files.clientCertificate(),
                    "spring.ssl.bundle.pem.cluster.keystore.private-key=file:" + this.files.clientKey())
            .run(context -> {
                assertThat(context).hasNotFailed(); // the startup check passed over TLS
                LockService locks = context.getBean(LockService.class);
                Set<RedisNode> used = new HashSet<>();
                for (int i = 0; i < 12; i++) {
                    String key = "tls-" + i;
                    try (LockHandle lock = locks.acquire(key)) {
                        RedisNode master = this.cluster.masterForKey("distlock:{" + key + "}:lock");
                        assertThat(master.lockField("distlock:{" + key + "}:lock", "owner"))
                            .isEqualTo(lock.ownerToken());
                        used.add(master);
                    }
                }
                assertThat(used).hasSize(3);

                String channel = "distlock:{tls-wait}:released";
                RedisNode owner = this.cluster.masterForKey(channel);
                LockHandle held = locks.acquire("tls-wait");
                CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> locks.acquire("tls-wait",
                        LockOptions.defaults().withOwner(new Object()).withWaitTime(Duration.ofSeconds(20))));
                Await.until(Duration.ofSeconds(10),
                        () -> owner.call("PUBSUB", "SHARDNUMSUB", channel).endsWith("\n1"),
                        "the waiter subscribed to " + channel + " with SSUBSCRIBE on " + owner);
                held.release();
                waiter.get(20, TimeUnit.SECONDS).release();
            });
    }
}
