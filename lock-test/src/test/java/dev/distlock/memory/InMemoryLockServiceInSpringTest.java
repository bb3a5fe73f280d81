package dev.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.OnNotAcquired;
import dev.distlock.spring.autoconfigure.DistributedLockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;

/**
 * The in-memory service in a Spring test, as docs/testing.md shows it: declared as the {@link LockService} bean, the
 * starter's Redis service backs off and {@code @DistributedLock} methods lock through it.
 */
class InMemoryLockServiceInSpringTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class,
                DistributedLockAspectAutoConfiguration.class))
        .withUserConfiguration(InMemoryLocks.class);

    @Test
    void lockedMethodsLockThroughTheInMemoryService() {
        this.contextRunner.run(context -> {
            assertThat(context).hasSingleBean(LockService.class).doesNotHaveBean(RedisLockService.class);
            InMemoryLockService locks = context.getBean(InMemoryLockService.class);
            Stock stock = context.getBean(Stock.class);
            assertThat(stock.reserve("42")).isEqualTo("reserved under the lock");
            assertThat(locks.heldLocks()).isEmpty();
            try (LockHandle held = locks.store().newService().acquire("stock:42")) {
                assertThat(stock.reserve("42")).isNull(); // SKIP: another "process" holds it
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class InMemoryLocks {

        @Bean
        InMemoryLockService lockService() {
            return InMemoryLockService.create();
        }

        @Bean
        Stock stock(InMemoryLockService locks) {
            return new Stock(locks);
        }
    }

    static class Stock {

        private final InMemoryLockService locks;

        Stock(InMemoryLockService locks) {
            this.locks = locks;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = "0s", onNotAcquired = OnNotAcquired.SKIP)
        public String reserve(String sku) {
            return this.locks.store().isLocked("stock:" + sku) ? "reserved under the lock" : "not locked";
        }
    }
}
