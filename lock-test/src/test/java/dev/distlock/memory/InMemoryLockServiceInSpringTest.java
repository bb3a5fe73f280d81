package dev.distlock.memory;

import static org.assertj.core.api.Assertions.assertThat;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
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

    /** A semaphore method, as docs/semaphores.md shows it: at most {@code permits} calls at once, across services. */
    @Test
    void semaphoreMethodsTakeAPermitOfTheirOwnThroughTheInMemoryService() {
        this.contextRunner.run(context -> {
            InMemoryLockService locks = context.getBean(InMemoryLockService.class);
            Stock stock = context.getBean(Stock.class);
            LockOptions export = LockOptions.defaults().withPermits(2);
            assertThat(stock.export()).isEqualTo("[SEMAPHORE exports]");
            assertThat(locks.heldLocks()).isEmpty();
            InMemoryLockService otherProcess = locks.store().newService();
            try (LockHandle one = otherProcess.acquire("exports", export)) {
                assertThat(stock.export()).as("one permit left").isEqualTo("[SEMAPHORE exports]");
                try (LockHandle two = otherProcess.acquire("exports", export)) {
                    assertThat(stock.export()).as("no permit left: SKIP").isNull();
                }
            }
            assertThat(stock.export()).isEqualTo("[SEMAPHORE exports]");
            otherProcess.close();
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

        /** What this service holds while the method runs: its one permit. */
        @DistributedLock(key = "'exports'", permits = 2, waitTime = "0s", onNotAcquired = OnNotAcquired.SKIP)
        public @Nullable String export() {
            return this.locks.heldLocks().stream().map(held -> held.mode() + " " + held.key()).toList().toString();
        }
    }
}
