package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TlsFiles;

/**
 * The starter over TLS to a TLS-only Redis (no plain port), through Boot's {@code spring.data.redis.ssl.bundle} with a
 * PEM bundle: locks and pub/sub wake-ups work, mutual TLS works with the client certificate in the bundle, and a
 * bundle that does not trust the server (a wrong CA) or lacks the client certificate stops startup naming the
 * property and keeping the TLS reason, instead of starting with "could not be reached".
 */
@RedisTest
class RedisTlsStartupTest {

    private static TlsFiles files;

    private static RedisNode tlsOnly;

    private static RedisNode mutualTls;

    @BeforeAll
    static void start(RedisServers servers) {
        assumeTrue(TlsFiles.isAvailable(), TlsFiles.SKIP_MESSAGE);
        files = TlsFiles.create();
        tlsOnly = servers.start(RedisNodeConfig.defaults().tls(files, false).requirePass("tls-secret"));
        mutualTls = servers.start(RedisNodeConfig.defaults().tls(files, true));
    }

    /** The starter's contexts on a TLS node, with a PEM bundle named {@code redis} trusting {@code authority}. */
    static ApplicationContextRunner tlsRunner(RedisNode node, Path authority) {
        return LockContexts.runner(node)
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.ssl.bundle=redis", "spring.data.redis.timeout=2s",
                    "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + authority);
    }

    @Test
    void locksAndWakeUpsWorkOverTlsOnly() {
        tlsRunner(tlsOnly, files.caCertificate()).withPropertyValues("spring.data.redis.password=tls-secret")
            .run(context -> {
                assertThat(context).hasNotFailed();
                LockService locks = context.getBean(LockService.class);
                LockHandle held = locks.acquire("tls");
                assertThat(tlsOnly.lockField(LockContexts.lockHash("tls"), "owner")).isNotNull();
                CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> locks.acquire("tls",
                        LockOptions.defaults().withOwner(new Object()).withWaitTime(Duration.ofSeconds(20))));
                held.release();
                waiter.get(20, TimeUnit.SECONDS).release();
                assertThat(tlsOnly.lockField(LockContexts.lockHash("tls"), "owner")).isNull();
            });
    }

    @Test
    void mutualTlsWorksWithTheClientCertificateInTheBundle() {
        tlsRunner(mutualTls, files.caCertificate())
            .withPropertyValues("spring.ssl.bundle.pem.redis.keystore.certificate=file:" + files.clientCertificate(),
                    "spring.ssl.bundle.pem.redis.keystore.private-key=file:" + files.clientKey())
            .run(context -> {
                assertThat(context).hasNotFailed();
                try (LockHandle held = context.getBean(LockService.class).acquire("mutual")) {
                    assertThat(mutualTls.lockField(LockContexts.lockHash("mutual"), "owner")).isNotNull();
                }
            });
    }

    @Test
    void aBundleThatDoesNotTrustTheServerStopsStartupNamingTheBundle() {
        tlsRunner(tlsOnly, TlsFiles.create().caCertificate())
            .withPropertyValues("spring.data.redis.password=tls-secret")
            .run(refused("spring.data.redis.ssl.bundle", "PKIX"));
    }

    @Test
    void mutualTlsWithoutAClientCertificateStopsStartupNamingTheBundle() {
        tlsRunner(mutualTls, files.caCertificate()).run(refused("spring.data.redis.ssl.bundle", "certificate"));
    }

    static ContextConsumer<AssertableApplicationContext> refused(String property, String reason) {
        return context -> {
            assertThat(context).hasFailed();
            RedisTlsException failure = find(context.getStartupFailure());
            assertThat(failure).as("a RedisTlsException in %s", context.getStartupFailure()).isNotNull();
            assertThat(failure.getMessage()).contains(property).contains(reason).doesNotContain("could not be reached");
            FailureAnalysis analysis = new RedisTlsFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("TLS").contains(reason);
            assertThat(analysis.getAction()).contains(property);
        };
    }

    private static RedisTlsException find(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisTlsException tls) {
                return tls;
            }
        }
        return null;
    }
}
