package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TlsFiles;

/**
 * Quorum mode over TLS to TLS-only masters (no plain port, so the credentials can only have gone over TLS):
 * {@code distlock.quorum.ssl.bundle} for every master, {@code rediss://} node URLs for some, Boot's
 * {@code spring.data.redis.ssl.bundle} when {@code distlock.quorum.ssl.*} is unset, and a bundle that does not trust
 * the masters stops startup naming {@code distlock.quorum.ssl.bundle}.
 */
@RedisTest
class QuorumTlsTest {

    private static TlsFiles files;

    private static List<RedisNode> tlsMasters;

    private static RedisNode plainMaster;

    @BeforeAll
    static void start(RedisServers servers) {
        assumeTrue(TlsFiles.isAvailable(), TlsFiles.SKIP_MESSAGE);
        files = TlsFiles.create();
        tlsMasters = servers.startIndependent(3, RedisNodeConfig.defaults().tls(files, false).requirePass("q-secret"));
        plainMaster = servers.start(RedisNodeConfig.defaults().requirePass("q-secret"));
    }

    /** Quorum mode on {@code nodes}, with the password and a PEM bundle named {@code quorum} trusting authority. */
    private static ApplicationContextRunner quorum(String nodes, Path authority) {
        return LockContexts.runner(plainMaster)
            .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
            .withPropertyValues("distlock.quorum.nodes=" + nodes, "distlock.quorum.password=q-secret",
                    "distlock.quorum.node-timeout=2s", "spring.data.redis.password=q-secret",
                    "spring.ssl.bundle.pem.quorum.truststore.certificate=file:" + authority);
    }

    private static String address(RedisNode node) {
        return "127.0.0.1:" + node.port();
    }

    private static String tlsNodes() {
        return String.join(",", tlsMasters.stream().map(QuorumTlsTest::address).toList());
    }

    private static void locksOn(ApplicationContextRunner runner, List<RedisNode> masters) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LockService.class)).isInstanceOf(QuorumLockService.class);
            try (LockHandle held = context.getBean(LockService.class).acquire("quorum-tls")) {
                assertThat(masters).allMatch(
                        master -> master.lockField(LockContexts.lockHash("quorum-tls"), "owner") != null);
            }
            assertThat(masters)
                .allMatch(master -> master.lockField(LockContexts.lockHash("quorum-tls"), "owner") == null);
        });
    }

    @Test
    void theQuorumBundleTurnsTlsOnForEveryMaster() {
        locksOn(quorum(tlsNodes(), files.caCertificate()).withPropertyValues("distlock.quorum.ssl.bundle=quorum"),
                tlsMasters);
    }

    @Test
    void redissNodesUseTlsAndTheOthersDoNot() {
        String nodes = "rediss://" + address(tlsMasters.get(0)) + ",rediss://" + address(tlsMasters.get(1)) + ","
                + plainMaster.uri();
        locksOn(quorum(nodes, files.caCertificate()).withPropertyValues("distlock.quorum.ssl.bundle=quorum",
                "distlock.quorum.ssl.enabled=false"), List.of(tlsMasters.get(0), tlsMasters.get(1), plainMaster));
    }

    @Test
    void bootsRedisSslBundleAppliesWhileTheQuorumSslIsUnset() {
        locksOn(quorum(tlsNodes(), files.caCertificate()).withPropertyValues(
                "spring.data.redis.port=" + tlsMasters.get(0).port(), "spring.data.redis.ssl.bundle=quorum"),
                tlsMasters);
    }

    @Test
    void aQuorumBundleThatDoesNotTrustTheMastersStopsStartupNamingIt() {
        quorum(tlsNodes(), TlsFiles.create().caCertificate()).withPropertyValues("distlock.quorum.ssl.bundle=quorum")
            .run(RedisTlsStartupTest.refused("distlock.quorum.ssl.bundle", "PKIX"));
    }
}
