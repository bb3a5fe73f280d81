package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.integration.DistributedLockRegistry;
import dev.distlock.shedlock.DistributedLockProvider;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The ShedLock provider and the Spring Integration LockRegistry are auto-configured on the LockService when their
 * libraries are on the class path, back off for the application's own, and each has its own switch.
 */
@RedisTest
class IntegrationsAutoConfigurationTest {

    private static ApplicationContextRunner runner(RedisNode redis) {
        return LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(ShedLockProviderAutoConfiguration.class,
                    LockRegistryAutoConfiguration.class));
    }

    @Test
    void bothAreRegisteredAndLockThroughTheLockService(RedisNode redis) {
        runner(redis).run(context -> {
            assertThat(context).hasSingleBean(DistributedLockProvider.class).hasSingleBean(DistributedLockRegistry.class);
            LockService locks = context.getBean(LockService.class);

            SimpleLock job = context.getBean(LockProvider.class)
                .lock(new LockConfiguration(Instant.now(), "report", Duration.ofMinutes(1), Duration.ZERO))
                .orElseThrow();
            assertThat(locks.tryAcquire("shedlock:report", LockOptions.defaults().withOwner(this)))
                .isEmpty();
            job.unlock();

            Lock lock = context.getBean(DistributedLockRegistry.class).obtain("orders");
            lock.lock();
            assertThat(locks.tryAcquire("lock-registry:orders", LockOptions.defaults().withOwner(this)))
                .isEmpty();
            lock.unlock();
            assertThat(locks.tryAcquire("lock-registry:orders")).hasValueSatisfying(LockHandle::release);
        });
    }

    @Test
    void keyPrefixesComeFromTheProperties(RedisNode redis) {
        runner(redis).withPropertyValues("distlock.shedlock.key-prefix=jobs:", "distlock.lock-registry.key-prefix=si:")
            .run(context -> {
                SimpleLock job = context.getBean(LockProvider.class)
                    .lock(new LockConfiguration(Instant.now(), "sync", Duration.ofMinutes(1), Duration.ZERO))
                    .orElseThrow();
                LockService locks = context.getBean(LockService.class);
                assertThat(locks.tryAcquire("jobs:sync", LockOptions.defaults().withOwner(this)))
                    .isEmpty();
                job.unlock();
                assertThat(context.getBean(DistributedLockRegistry.class).obtain("x").key()).isEqualTo("si:x");
            });
    }

    @Test
    void eachBacksOffForTheApplicationsOwn(RedisNode redis) {
        LockProvider own = configuration -> Optional.empty();
        runner(redis).withBean(LockProvider.class, () -> own)
            .withBean(LockRegistry.class, DefaultLockRegistry::new)
            .run(context -> {
                assertThat(context).doesNotHaveBean(DistributedLockProvider.class)
                    .doesNotHaveBean(DistributedLockRegistry.class);
                assertThat(context.getBean(LockProvider.class)).isSameAs(own);
            });
    }

    @Test
    void eachHasItsOwnSwitch(RedisNode redis) {
        runner(redis).withPropertyValues("distlock.shedlock.enabled=false").run(context -> assertThat(context)
            .doesNotHaveBean(LockProvider.class)
            .hasSingleBean(DistributedLockRegistry.class));
        runner(redis).withPropertyValues("distlock.lock-registry.enabled=false").run(context -> assertThat(context)
            .hasSingleBean(DistributedLockProvider.class)
            .doesNotHaveBean(LockRegistry.class));
        runner(redis).withPropertyValues("distlock.enabled=false").run(context -> assertThat(context)
            .hasNotFailed()
            .doesNotHaveBean(LockProvider.class)
            .doesNotHaveBean(LockRegistry.class));
    }

    @Test
    void withoutTheirLibrariesNeitherIsRegistered(RedisNode redis) {
        runner(redis)
            .withClassLoader(new FilteredClassLoader("net.javacrumbs.shedlock.", "org.springframework.integration."))
            .run(context -> assertThat(context).hasNotFailed()
                .hasSingleBean(LockService.class)
                .doesNotHaveBean(DistributedLockProvider.class)
                .doesNotHaveBean(DistributedLockRegistry.class));
    }

    @Test
    void aKeyPrefixWithBracesStopsStartupNamingTheProperty(RedisNode redis) {
        runner(redis).withPropertyValues("distlock.shedlock.key-prefix={jobs}").run(context -> assertThat(context)
            .getFailure()
            .rootCause()
            .hasMessageContaining("distlock.shedlock")
            .hasMessageContaining("keyPrefix"));
        runner(redis).withPropertyValues("distlock.lock-registry.cache-capacity=-1").run(context -> assertThat(context)
            .getFailure()
            .rootCause()
            .hasMessageContaining("distlock.lock-registry")
            .hasMessageContaining("cacheCapacity"));
    }
}
