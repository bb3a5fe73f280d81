package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.HeldLock;
import dev.distlock.LockInspection;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * {@code @DistributedLock(permits = n)}: at most n calls at once, the others turned away as for a held lock, the
 * permits listed as held while the calls run, and bad declarations failing startup.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreAspectTest {

    @Test
    void atMostTwoCallsRunAtOnceAndAThirdIsTurnedAway(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            Exports exports = context.getBean(Exports.class);
            CountDownLatch bothInside = new CountDownLatch(2);
            CountDownLatch letGo = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Boolean>> running = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    running.add(pool.submit(() -> exports.run(bothInside, letGo)));
                }
                assertThat(bothInside.await(20, TimeUnit.SECONDS)).as("two calls inside at once").isTrue();
                assertThat(context.getBean(LockInspection.class).heldLocks()).extracting(HeldLock::mode)
                    .containsExactly(LockMode.SEMAPHORE, LockMode.SEMAPHORE);
                assertThatThrownBy(() -> exports.run(new CountDownLatch(0), new CountDownLatch(0)))
                    .isInstanceOf(LockTimeoutException.class);
                letGo.countDown();
                for (Future<Boolean> call : running) {
                    assertThat(call.get(20, TimeUnit.SECONDS)).as("held its permit throughout").isTrue();
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(exports.run(new CountDownLatch(0), new CountDownLatch(0))).isTrue();
            assertThat(redis.call("EXISTS", "distlock:{export}:sem:leases")).isEqualTo("0");
        });
    }

    @Test
    void aNegativeLimitOrAReadSemaphoreFailsStartupNamingTheMethod(RedisNode redis) {
        LockContexts.runner(redis).withBean(Negative.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Negative.run")
            .hasMessageContaining("permit limit must be at least 1, but was -1"));
        LockContexts.runner(redis).withBean(Read.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Read.run").hasMessageContaining("A semaphore has no READ side"));
        LockContexts.runner(redis).withBean(Unbounded.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Unbounded.run").hasMessageContaining("needs permits"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Exports exports() {
            return new Exports();
        }
    }

    static class Exports {

        @DistributedLock(key = "'export'", permits = 2, waitTime = "200ms")
        public boolean run(CountDownLatch inside, CountDownLatch letGo) throws InterruptedException {
            inside.countDown();
            letGo.await(20, TimeUnit.SECONDS);
            return CurrentLock.required().isHeld();
        }
    }

    static class Negative {

        @DistributedLock(key = "'export'", permits = -1)
        public void run() {
        }
    }

    static class Read {

        @DistributedLock(key = "'export'", mode = LockMode.READ, permits = 3)
        public void run() {
        }
    }

    static class Unbounded {

        @DistributedLock(key = "'export'", mode = LockMode.SEMAPHORE)
        public void run() {
        }
    }
}
