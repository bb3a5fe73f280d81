package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.spring.CurrentLock;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Quorum mode through the starter: {@code distlock.quorum.nodes} makes a {@link QuorumLockService} the lock service,
 * {@code @DistributedLock} runs on it, and a bad quorum configuration stops startup naming the property.
 */
@RedisTest
class QuorumLockAutoConfigurationTest {

    private static List<RedisNode> masters;

    @BeforeAll
    static void startMasters(RedisServers servers) {
        masters = servers.startIndependent(5);
    }

    @BeforeEach
    void flush() {
        masters.forEach(RedisNode::flushAll);
    }

    private static String nodes(List<RedisNode> nodes) {
        return String.join(",", nodes.stream().map(node -> "127.0.0.1:" + node.port()).toList());
    }

    /** The starter's contexts with quorum mode on the five masters (spring.data.redis points at one, unused). */
    private static ApplicationContextRunner quorumRunner() {
        return LockContexts.runner(masters.get(0)).withPropertyValues("distlock.quorum.nodes=" + nodes(masters),
                "distlock.quorum.node-timeout=200ms");
    }

    private static long holders(String key) {
        return masters.stream()
            .filter(master -> master.lockField(LockContexts.lockHash(key), "owner") != null)
            .count();
    }

    @Test
    void quorumNodesMakeAQuorumLockServiceTheLockService() {
        AtomicReference<LockService> service = new AtomicReference<>();
        quorumRunner().run(context -> {
            assertThat(context).hasSingleBean(LockService.class).doesNotHaveBean(RedisLockService.class);
            assertThat(context.getBean(LockService.class)).isInstanceOf(QuorumLockService.class);
            service.set(context.getBean(LockService.class));
            try (LockHandle lock = service.get().acquire("quorum")) {
                assertThat(holders("quorum")).isEqualTo(5);
            }
            assertThat(holders("quorum")).isZero();
        });
        assertThatThrownBy(() -> service.get().acquire("after-close")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
    }

    @Test
    void aYamlStyleListAndTheSharedSettingsApply() {
        List<String> properties = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            properties.add("distlock.quorum.nodes[" + i + "]=127.0.0.1:" + masters.get(i).port());
        }
        properties.add("distlock.key-prefix=orders");
        properties.add("distlock.max-key-length=16");
        LockContexts.runner(masters.get(0)).withPropertyValues(properties.toArray(String[]::new)).run(context -> {
            QuorumLockService locks = context.getBean(QuorumLockService.class);
            assertThat(locks.masterCount()).isEqualTo(3);
            try (LockHandle lock = locks.acquire("prefixed")) {
                assertThat(masters.subList(0, 3))
                    .allMatch(master -> master.lockField("orders:{prefixed}:lock", "owner") != null);
            }
            assertThatThrownBy(() -> locks.acquire("k".repeat(17))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must be at most 16 characters");
        });
    }

    @Test
    void distributedLockMethodsRunUnderTheQuorumLock() {
        quorumRunner().withUserConfiguration(ReportConfiguration.class).run(context -> {
            Report report = context.getBean(Report.class);
            assertThat(report.run()).isEqualTo(5);
            assertThat(Report.fencingToken).hasPositiveValue();
            assertThat(holders("nightly-report")).isZero();
        });
    }

    /** In {@code nodes}, {@code M<i>} stands for the address of master i. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            M0,M1,M2,M3         | distlock.quorum.nodes must list an odd number of at least 3 independent Redis
            M0,M1,M2,M3         | masters, but listed 4
            M0                  | masters, but listed 1
            M0,localhost,M2     | distlock.quorum.nodes[1] must be host:port, redis://host:port or rediss://host:port
            M0,localhost,M2     | rediss://host:port, but was 'localhost'
            M0,127.0.0.1:0,M2   | rediss://host:port, but was '127.0.0.1:0'
            M0,rediss://u:p@127.0.0.1:1,M2 | but was a URL with credentials; set distlock.quorum.username and
            M0,M1,rediss://M1   | distlock.quorum.nodes[2] repeats 127.0.0.1:
            M0,M1,M0            | distlock.quorum.nodes[2] repeats 127.0.0.1:
            """)
    void aBadNodeListStopsStartupNamingTheProperty(String nodes, String message) {
        String addresses = nodes;
        for (int i = 0; i < masters.size(); i++) {
            addresses = addresses.replace("M" + i, "127.0.0.1:" + masters.get(i).port());
        }
        LockContexts.runner(masters.get(0)).withPropertyValues("distlock.quorum.nodes=" + addresses)
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure())).contains(message);
            });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distlock.quorum.node-timeout=0    | distlock.quorum.node-timeout must be between 1ms and 1 minute
            distlock.quorum.node-timeout=5s   | distlock.quorum.node-timeout (5.0 s) must be at most a tenth of
            distlock.quorum.node-timeout=5s   | at most a tenth of distlock.watchdog.lease (30.0 s)
            """)
    void aBadNodeTimeoutStopsStartupNamingTheProperty(String property, String message) {
        quorumRunner().withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains(message);
        });
    }

    @Test
    void fewerThanAQuorumOfReachableMastersStopsStartupNamingTheProperty() throws IOException {
        List<String> nodes = new ArrayList<>();
        nodes.add("127.0.0.1:" + masters.get(0).port());
        nodes.add("127.0.0.1:" + masters.get(1).port());
        for (int i = 0; i < 3; i++) {
            nodes.add("127.0.0.1:" + closedPort());
        }
        LockContexts.runner(masters.get(0)).withPropertyValues("distlock.quorum.nodes=" + String.join(",", nodes))
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure()))
                    .contains("distlock.quorum.nodes: Too few Redis masters answer PING: only 2 of 5 Redis masters "
                            + "answered, 3 needed")
                    .contains(nodes.get(4));
            });
    }

    @Test
    void theCredentialsApplyToEveryMaster(RedisServers servers) {
        List<RedisNode> guarded = servers.startIndependent(3, RedisNodeConfig.defaults().requirePass("quorum-secret"));
        LockContexts.runner(masters.get(0))
            .withPropertyValues("distlock.quorum.nodes=" + nodes(guarded), "distlock.quorum.password=quorum-secret")
            .run(context -> {
                try (LockHandle lock = context.getBean(LockService.class).acquire("guarded")) {
                    assertThat(guarded)
                        .allMatch(master -> master.lockField(LockContexts.lockHash("guarded"), "owner") != null);
                }
            });
        LockContexts.runner(masters.get(0))
            .withPropertyValues("distlock.quorum.nodes=" + nodes(guarded), "distlock.quorum.password=wrong")
            .run(context -> {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure()))
                    .contains("Redis refused distlock's credentials (")
                    .contains("(WRONGPASS invalid username-password pair")
                    .contains("Fix distlock.quorum.password and distlock.quorum.username");
            });
    }

    @Test
    void distlockEnabledFalseTurnsQuorumModeOffToo() {
        quorumRunner().withPropertyValues("distlock.enabled=false")
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockService.class));
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static String messages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            text.append(cause.getMessage()).append('\n');
        }
        return text.toString();
    }

    @Configuration(proxyBeanMethods = false)
    static class ReportConfiguration {

        @Bean
        Report report() {
            return new Report();
        }
    }

    static class Report {

        static final AtomicLong fencingToken = new AtomicLong();

        @DistributedLock(key = "'nightly-report'", waitTime = "2s")
        public long run() {
            fencingToken.set(CurrentLock.required().fencingToken());
            return holders("nightly-report");
        }
    }
}
