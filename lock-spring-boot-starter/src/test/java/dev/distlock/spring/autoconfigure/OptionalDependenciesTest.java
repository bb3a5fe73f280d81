package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.DistributedLockAdvisor;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.actuate.LocksEndpoint;
import dev.distlock.spring.micrometer.LockMetrics;
import dev.distlock.spring.micrometer.ObservedLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Micrometer and Actuator are optional: each part of observability is on when its library is on the class path (and
 * its registry bean exists), and the starter's locks work without any of them.
 */
@RedisTest
class OptionalDependenciesTest {

    /** The health contributor's bean: Boot 4's or Boot 3.5's type, one name. */
    private static final String HEALTH = "distlockHealthIndicator";

    private static ApplicationContextRunner runner(RedisNode redis) throws ClassNotFoundException {
        return runner(redis, true);
    }

    /** Every auto-configuration the starter registers, as Boot finds them, and Boot's metrics if asked. */
    private static ApplicationContextRunner runner(RedisNode redis, boolean bootMetrics) throws ClassNotFoundException {
        List<Class<?>> registered = new ArrayList<>();
        ClassLoader classLoader = OptionalDependenciesTest.class.getClassLoader();
        for (String name : ImportCandidates.load(AutoConfiguration.class, classLoader)) {
            if (name.startsWith("dev.distlock.")) {
                registered.add(Class.forName(name));
            }
        }
        assertThat(registered).contains(DistributedLockMetricsAutoConfiguration.class,
                DistributedLockObservationAutoConfiguration.class, DistributedLockEndpointAutoConfiguration.class,
                DistributedLockHealthAutoConfiguration.class);
        ApplicationContextRunner runner = LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(registered.toArray(Class<?>[]::new)))
            .withPropertyValues("management.endpoints.web.exposure.include=locks");
        return bootMetrics ? runner.withConfiguration(AutoConfigurations.of(BootAutoConfigurations.METRICS)) : runner;
    }

    @Test
    void withMicrometerAndActuatorEveryPartIsOn(RedisNode redis) throws Exception {
        runner(redis).withBean(SimpleMeterRegistry.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .run(context -> {
                assertThat(context).hasSingleBean(LockMetrics.class)
                    .hasSingleBean(ObservedLockService.class)
                    .hasSingleBean(LocksEndpoint.class)
                    .hasBean(HEALTH);
                assertThat(context.getBean(LockService.class)).isInstanceOf(ObservedLockService.class);
                assertLocksWork(context);
            });
    }

    @Test
    void withoutMicrometerTheLocksWorkWithNoMetricsOrObservations(RedisNode redis) throws Exception {
        // the registry beans exist, but Boot sees no Micrometer on the class path
        runner(redis).withBean(SimpleMeterRegistry.class)
            .withBean(ObservationRegistry.class, ObservationRegistry::create)
            .withClassLoader(new FilteredClassLoader("io.micrometer."))
            .run(context -> {
                assertThat(context).hasNotFailed()
                    .doesNotHaveBean(LockMetrics.class)
                    .doesNotHaveBean(ObservedLockService.class)
                    .hasSingleBean(LocksEndpoint.class)
                    .hasBean(HEALTH);
                assertLocksWork(context);
            });
    }

    @Test
    void withoutActuatorTheLocksWorkWithNoEndpointOrHealth(RedisNode redis) throws Exception {
        // Boot 3.5's metrics auto-configuration is part of Actuator
        runner(redis, !BootAutoConfigurations.BOOT_3).withBean(SimpleMeterRegistry.class)
            .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate.",
                    "org.springframework.boot.health."))
            .run(context -> {
                assertThat(context).hasNotFailed()
                    .doesNotHaveBean(LocksEndpoint.class)
                    .doesNotHaveBean(HEALTH)
                    .hasSingleBean(LockMetrics.class);
                assertLocksWork(context);
            });
    }

    @Test
    void withoutARegistryBeanThereAreNoMetricsOrObservations(RedisNode redis) throws Exception {
        runner(redis).run(context -> {
            assertThat(context).doesNotHaveBean(MeterRegistry.class)
                .doesNotHaveBean(LockMetrics.class)
                .doesNotHaveBean(ObservedLockService.class);
            assertLocksWork(context);
        });
    }

    @Test
    void theEndpointIsAbsentUnlessExposedAndTheHealthContributorCanBeTurnedOff(RedisNode redis) throws Exception {
        runner(redis)
            .withPropertyValues("management.endpoints.web.exposure.include=health",
                    "management.health.distlock.enabled=false")
            .run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(LocksEndpoint.class)
                .doesNotHaveBean(HEALTH));
    }

    private static void assertLocksWork(AssertableApplicationContext context) {
        assertThat(context).hasSingleBean(RedisLockService.class).hasSingleBean(DistributedLockAdvisor.class);
        try (LockHandle lock = context.getBean(LockService.class).acquire("works:1")) {
            assertThat(lock.isHeld()).isTrue();
        }
    }
}
