package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import dev.distlock.HeldLock;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.BootHealth;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.actuate.LocksEndpoint;
import dev.distlock.spring.micrometer.LockMetrics;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/** Quorum mode has what single-Redis mode has: the locks endpoint, the health contributor and the held-locks gauge. */
@RedisTest
class QuorumInspectionTest {

    private static List<RedisNode> masters;

    @BeforeAll
    static void startMasters(RedisServers servers) {
        masters = servers.startIndependent(3);
    }

    @Test
    void theEndpointHealthAndGaugeSeeQuorumLocks() {
        String nodes = String.join(",", masters.stream().map(master -> "127.0.0.1:" + master.port()).toList());
        LockContexts.runner(masters.get(0))
            .withConfiguration(AutoConfigurations.of(BootAutoConfigurations.METRICS,
                    DistributedLockEndpointAutoConfiguration.class, DistributedLockMetricsAutoConfiguration.class))
            .withConfiguration(AutoConfigurations.of(BootHealth.autoConfigurations()))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("distlock.quorum.nodes=" + nodes, "distlock.quorum.node-timeout=200ms",
                    "management.endpoints.web.exposure.include=locks")
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(LockService.class)).isInstanceOf(QuorumLockService.class);
                LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                try (LockHandle lock = context.getBean(LockService.class).acquire("report:7",
                        LockOptions.defaults().withName("report"))) {
                    List<HeldLock> held = endpoint.locks().locks();
                    assertThat(held).singleElement().satisfies(one -> {
                        assertThat(one.key()).isEqualTo("report:7");
                        assertThat(one.name()).isEqualTo("report");
                        assertThat(one.fencingToken()).isEqualTo(lock.fencingToken());
                        assertThat(one.watchdog()).isTrue();
                    });
                    assertThat(meters.get(LockMetrics.LOCKS_HELD).gauge().value()).isEqualTo(1);
                    BootHealth status = BootHealth.of(context);
                    assertThat(status.status()).isEqualTo("UP");
                    assertThat(status.details()).containsEntry("heldLocks", 1).containsEntry("renewing", 1);
                }
                assertThat(endpoint.locks().locks()).isEmpty();
                assertThat(meters.get(LockMetrics.LOCKS_HELD).gauge().value()).isZero();
            });
    }
}
