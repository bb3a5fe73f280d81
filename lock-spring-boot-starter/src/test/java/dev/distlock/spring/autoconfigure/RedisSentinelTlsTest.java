package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import dev.distlock.LockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.SentinelTopology;
import dev.distlock.test.TlsFiles;

/**
 * The auto-configured LockService behind TLS-only Sentinels and a TLS-only master and replica (mutual TLS everywhere)
 * through Boot's {@code spring.data.redis.sentinel.*} and {@code spring.data.redis.ssl.bundle}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisSentinelTlsTest {

    private final RedisServers servers = RedisServers.create();

    private TlsFiles files;

    private SentinelTopology sentinel;

    @BeforeAll
    void startSentinels() {
        assumeTrue(TlsFiles.isAvailable(), TlsFiles.SKIP_MESSAGE);
        this.files = TlsFiles.create();
        this.sentinel = this.servers.startSentinelTopology("tls-master",
                RedisNodeConfig.defaults().tls(this.files, true));
    }

    @AfterAll
    void stopSentinels() {
        this.servers.close();
    }

    @Test
    void locksWorkBehindTlsOnlySentinels() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                    SslAutoConfiguration.class, BootAutoConfigurations.DATA_REDIS,
                    DistributedLockAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.sentinel.master=tls-master",
                    "spring.data.redis.sentinel.nodes=" + String.join(",", this.sentinel.sentinelAddresses()),
                    "spring.data.redis.ssl.bundle=sentinel", "spring.data.redis.timeout=2s",
                    "spring.ssl.bundle.pem.sentinel.truststore.certificate=file:" + this.files.caCertificate(),
                    "spring.ssl.bundle.pem.sentinel.keystore.certificate=file:" + this.files.clientCertificate(),
                    "spring.ssl.bundle.pem.sentinel.keystore.private-key=file:" + this.files.clientKey())
            .run(context -> {
                assertThat(context).hasNotFailed(); // the startup check passed over TLS
                try (LockHandle lock = context.getBean(LockService.class).acquire("sentinel-tls")) {
                    assertThat(this.sentinel.master().lockField("distlock:{sentinel-tls}:lock", "owner"))
                        .isEqualTo(lock.ownerToken());
                }
            });
    }
}
