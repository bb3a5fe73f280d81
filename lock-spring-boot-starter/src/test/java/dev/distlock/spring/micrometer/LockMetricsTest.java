package dev.distlock.spring.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.RestartGraceException;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Lock metrics in an application context with a {@link SimpleMeterRegistry}, against a real Redis: acquired, timed
 * out, Redis errors, renewals and lost leases, all tagged with lock names and never with a key.
 */
@RedisTest
class LockMetricsTest {

    /** Keys with ids in them, as applications build them: none of these may appear in a tag. */
    private static final List<String> KEYS = List.of("stock:sku-9f3a", "user:alice@example.com", "cart:user-77");

    private static ApplicationContextRunner runner(RedisNode redis) {
        return LockContexts.runner(redis)
            .withConfiguration(
                    AutoConfigurations.of(BootAutoConfigurations.METRICS, DistributedLockMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withUserConfiguration(Beans.class)
            .withPropertyValues("spring.data.redis.timeout=300ms", "distlock.watchdog.lease=1500ms",
                    "distlock.watchdog.renewal-interval=100ms", "distlock.metrics.key-names=stock,user,cart");
    }

    @Test
    void anAcquiredLockIsCountedTimedHeldAndRenewed(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            Shop shop = context.getBean(Shop.class);
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch leave = new CountDownLatch(1);
            Thread buyer = new Thread(() -> shop.buy("sku-9f3a", inside, leave));
            buyer.start();
            try {
                assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(meters.get(LockMetrics.LOCKS_HELD).gauge().value()).isEqualTo(1);
                Await.until(Duration.ofSeconds(10), () -> renewals(meters, "renewed") >= 1,
                        "the watchdog renews the held lease");
            }
            finally {
                leave.countDown();
                buyer.join(10_000);
            }
            String name = "LockMetricsTest.Shop.buy";
            assertThat(attempts(meters, name, "acquired")).isEqualTo(1);
            assertThat(waits(meters, name, "acquired").count()).isEqualTo(1);
            Timer hold = meters.get(LockMetrics.HOLD).tag("name", name).timer();
            assertThat(hold.count()).isEqualTo(1);
            assertThat(hold.totalTime(TimeUnit.MILLISECONDS)).isPositive();
            assertThat(meters.get(LockMetrics.LOCKS_HELD).gauge().value()).isZero();

            context.getBean(LockService.class).acquire("user:alice@example.com").release();
            assertThat(attempts(meters, "user", "acquired")).isEqualTo(1);
            assertNoKeyInAnyTag(meters);
        });
    }

    @Test
    void aLockHeldElsewhereCountsAsTimedOutWithItsWait(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.acquire("stock:sku-9f3a");
            LockOptions otherOwner = LockOptions.defaults().withOwner(new Object());
            assertThatThrownBy(() -> locks.acquire("stock:sku-9f3a", otherOwner.withWaitTime(Duration.ofMillis(50))))
                .isInstanceOf(LockTimeoutException.class);
            assertThat(locks.tryAcquire("stock:sku-9f3a", otherOwner)).isEmpty();
            held.release();

            assertThat(attempts(meters, "stock", "acquired")).isEqualTo(1);
            assertThat(attempts(meters, "stock", "timed_out")).isEqualTo(2);
            Timer waited = waits(meters, "stock", "timed_out");
            assertThat(waited.count()).isEqualTo(2);
            assertThat(waited.max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(50);
            assertNoKeyInAnyTag(meters);
        });
    }

    @Test
    void aStoppedRedisCountsFailedRenewalsALostLeaseAndRedisErrors(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.acquire("cart:user-77");
            redis.stop();
            Await.until(Duration.ofSeconds(10), () -> leasesLost(meters, "cart") == 1,
                    "the lease is reported lost once it runs out while Redis is down");
            assertThat(held.isHeld()).isFalse();
            assertThat(renewals(meters, "failed")).isPositive();

            assertThatThrownBy(() -> locks.acquire("stock:sku-9f3a", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                .isInstanceOf(LockUnavailableException.class);
            assertThat(attempts(meters, "stock", "redis_error")).isEqualTo(1);
            assertThat(waits(meters, "stock", "redis_error").count()).isEqualTo(1);
            assertNoKeyInAnyTag(meters);
        });
    }

    @Test
    void aRestartGraceRefusalHasItsOwnOutcomeNotRedisError(RedisServers servers) {
        RedisNode young = servers.start(); // younger than the grace: Redis refuses new locks
        runner(young).withPropertyValues("distlock.safety.restart-grace=1h").run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            assertThatThrownBy(() -> locks.acquire("stock:sku-9f3a", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                .isInstanceOf(RestartGraceException.class);

            assertThat(attempts(meters, "stock", "restart_grace")).isEqualTo(1);
            assertThat(waits(meters, "stock", "restart_grace").count()).isEqualTo(1);
            assertThat(attempts(meters, "stock", "redis_error")).as("no Redis-error alert after a restart").isZero();
        });
    }

    @Test
    void nonBlockingAcquisitionsAndHandOffsAreCountedByTheSameRoute(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.async().acquire("stock:sku-9f3a", LockOptions.defaults()).get(10, TimeUnit.SECONDS);
            LockOptions otherOwner = LockOptions.defaults().withOwner(new Object());
            assertThat(locks.async().tryAcquire("stock:sku-9f3a", otherOwner).get(10, TimeUnit.SECONDS)).isEmpty();
            held.releaseAsync().get(10, TimeUnit.SECONDS);
            assertThat(attempts(meters, "stock", "acquired")).isEqualTo(1);
            assertThat(attempts(meters, "stock", "timed_out")).isEqualTo(1);
            Await.until(Duration.ofSeconds(10), () -> meters.find(LockMetrics.HOLD).timers().size() == 1,
                    "the non-blocking release is timed");

            int cycles = HotKey.hammer(locks, "cart:hot", () -> handOffs(meters, "cart") > 0, Duration.ofSeconds(30));
            assertThat(handOffs(meters, "cart")).as("hand-offs among four threads of one service").isPositive();
            assertThat(attempts(meters, "cart", "acquired")).isEqualTo(cycles);
            assertNoKeyInAnyTag(meters);
        });
    }

    @Test
    void callersWhoControlKeysCannotAddMetersAndDeclaredNamesAreCapped(RedisNode redis) {
        runner(redis).withPropertyValues("distlock.metrics.max-names=5").run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            for (int i = 0; i < 200; i++) {
                locks.acquire(letters(i) + ":cart").release(); // "<id>:cart": the first part is the caller's
            }
            for (int i = 0; i < 20; i++) {
                locks.acquire("job:" + i, LockOptions.defaults().withName("job-" + letters(i))).release();
            }

            assertThat(attempts(meters, "unnamed", "acquired")).isEqualTo(200);
            assertThat(attempts(meters, "other", "acquired")).isEqualTo(15);
            assertThat(meters.find(LockMetrics.ACQUIRE_ATTEMPTS).counters()).hasSize(1 + 5 + 1);
            assertThat(meters.getMeters()).hasSizeLessThan(30);
        });
    }

    /** A letters-only id, as a user name would be: 0 is "a", 26 is "ba". */
    private static String letters(int number) {
        StringBuilder text = new StringBuilder();
        int rest = number;
        do {
            text.insert(0, (char) ('a' + rest % 26));
            rest /= 26;
        }
        while (rest > 0);
        return "id" + text;
    }

    private static double attempts(MeterRegistry meters, String name, String outcome) {
        Counter counter = meters.find(LockMetrics.ACQUIRE_ATTEMPTS).tag("name", name).tag("outcome", outcome).counter();
        return (counter != null) ? counter.count() : 0;
    }

    private static Timer waits(MeterRegistry meters, String name, String outcome) {
        return meters.get(LockMetrics.ACQUIRE_WAIT).tag("name", name).tag("outcome", outcome).timer();
    }

    private static double handOffs(MeterRegistry meters, String name) {
        Counter counter = meters.find(LockMetrics.HAND_OFFS).tag("name", name).counter();
        return (counter != null) ? counter.count() : 0;
    }

    private static double leasesLost(MeterRegistry meters, String name) {
        Counter counter = meters.find(LockMetrics.LEASES_LOST).tag("name", name).counter();
        return (counter != null) ? counter.count() : 0;
    }

    private static double renewals(MeterRegistry meters, String outcome) {
        Counter counter = meters.find(LockMetrics.RENEWALS).tag("outcome", outcome).counter();
        return (counter != null) ? counter.count() : 0;
    }

    /** Every tag of every meter in the registry: none holds a key, or the id part of one. */
    static void assertNoKeyInAnyTag(MeterRegistry meters) {
        assertThat(meters.getMeters()).isNotEmpty();
        for (Meter meter : meters.getMeters()) {
            for (Tag tag : meter.getId().getTags()) {
                for (String key : KEYS) {
                    String id = key.substring(key.indexOf(':') + 1);
                    assertThat(tag.getValue()).as("tag %s of %s", tag.getKey(), meter.getId().getName())
                        .doesNotContain(key)
                        .doesNotContain(id);
                }
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Shop shop() {
            return new Shop();
        }
    }

    static class Shop {

        @DistributedLock(key = "'stock:' + #sku", waitTime = "5s")
        public void buy(String sku, CountDownLatch inside, CountDownLatch leave) {
            inside.countDown();
            try {
                leave.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
