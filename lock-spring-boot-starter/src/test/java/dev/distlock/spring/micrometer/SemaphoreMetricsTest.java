package dev.distlock.spring.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Semaphore metrics against a real Redis: the permits-held gauge follows grants, releases, lost permits and leases
 * that ran out, and waits, refusals and losses of permits are recorded apart from those of locks by their
 * {@code mode} tag.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreMetricsTest {

    private static final String LEASES = "distlock:{exports}:sem:leases";

    /** A semaphore of 5 permits on "exports", declared with the name "exports". */
    private static final LockOptions EXPORTS = LockOptions.defaults().withName("exports").withPermits(5);

    private static ApplicationContextRunner runner(RedisNode redis) {
        return LockContexts.runner(redis)
            .withConfiguration(
                    AutoConfigurations.of(BootAutoConfigurations.METRICS, DistributedLockMetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("spring.data.redis.timeout=300ms", "distlock.watchdog.lease=1500ms",
                    "distlock.watchdog.renewal-interval=100ms");
    }

    @Test
    void theGaugeCountsThePermitsHeldAndAWaitForAPermitIsTimedAsASemaphores(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle two = locks.acquire("exports", EXPORTS.withPermits(5, 2));
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(2);
            LockHandle one = locks.acquire("exports", EXPORTS);
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(3);
            // a plain lock of the same name is no permit
            LockHandle lock = locks.acquire("exports", LockOptions.defaults().withName("exports"));
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(3);
            assertThat(meters.find(LockMetrics.PERMITS_HELD).tag("mode", "exclusive").gauge()).isNull();

            // three more do not fit beside three: refused at once, then granted to a waiter when two come back
            assertThat(locks.tryAcquire("exports", EXPORTS.withPermits(5, 3))).isEmpty();
            CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                    () -> locks.acquire("exports", EXPORTS.withPermits(5, 3).withWaitTime(Duration.ofSeconds(20))));
            Await.until(Duration.ofSeconds(10), () -> redis.lockField("distlock:{exports}:sem:permits", "waiting")
                    != null, "the waiter waits in Redis");
            two.release();
            LockHandle three = waiter.get(20, TimeUnit.SECONDS);
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(4);

            three.release();
            one.release();
            lock.release();
            assertThat(permitsHeld(meters, "semaphore")).isZero();

            assertThat(attempts(meters, "semaphore", "acquired")).isEqualTo(3);
            assertThat(attempts(meters, "semaphore", "timed_out")).isEqualTo(1);
            assertThat(attempts(meters, "exclusive", "acquired")).isEqualTo(1);
            Timer waitedForPermits = meters.get(LockMetrics.ACQUIRE_WAIT)
                .tags("name", "exports", "mode", "semaphore", "outcome", "acquired")
                .timer();
            assertThat(waitedForPermits.count()).isEqualTo(3);
            assertThat(waitedForPermits.max(TimeUnit.MILLISECONDS)).as("the waiter's wait").isPositive();
            assertThat(meters.get(LockMetrics.HOLD).tags("name", "exports", "mode", "semaphore").timer().count())
                .isEqualTo(3);
            assertThat(meters.get(LockMetrics.HOLD).tags("name", "exports", "mode", "exclusive").timer().count())
                .isEqualTo(1);
        });
    }

    @Test
    void aPermitLostWhileHeldLeavesTheGaugeAndIsCountedAsASemaphoresLoss(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle kept = locks.acquire("exports", EXPORTS);
            LockHandle lost = locks.acquire("exports", EXPORTS.withPermits(5, 2));
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(3);

            redis.call("ZREM", LEASES, lost.ownerToken()); // the permits vanished (a failover that lost them)

            Await.until(Duration.ofSeconds(10), () -> leasesLost(meters, "semaphore") == 1,
                    "the lost permits are counted");
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(1);
            assertThat(leasesLost(meters, "exclusive")).isZero();
            assertThatThrownBy(lost::release).isInstanceOf(LeaseLostException.class);
            kept.release();
            assertThat(permitsHeld(meters, "semaphore")).isZero();
        });
    }

    @Test
    void permitsWhoseLeaseRanOutWhileRedisWasPausedLeaveTheGaugeAndAreCounted(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle fair = locks.acquire("exports", EXPORTS.withMode(LockMode.FAIR).withPermits(5, 2));
            assertThat(permitsHeld(meters, "fair_semaphore")).isEqualTo(2);
            redis.pause();
            try {
                Await.until(Duration.ofSeconds(10), () -> leasesLost(meters, "fair_semaphore") == 1,
                        "the permits are reported lost once their lease ran out unrenewed");
                assertThat(permitsHeld(meters, "fair_semaphore")).isZero();
            }
            finally {
                redis.resume();
            }
            assertThat(fair.isHeld()).isFalse();
            assertThat(renewals(meters, "failed")).isPositive();
        });
    }

    @Test
    void aFixedLeaseLeftToRunOutStopsCountingAtItsDeadline(RedisNode redis) {
        runner(redis).run(context -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle paused = locks.acquire("exports", EXPORTS.withPermits(5, 3).withLeaseTime(Duration.ofMillis(400)));
            assertThat(permitsHeld(meters, "semaphore")).isEqualTo(3);
            // the holder stalls past its lease (a GC pause): no event says so, the gauge still drops
            Await.until(Duration.ofSeconds(10), () -> permitsHeld(meters, "semaphore") == 0,
                    "the permits stop counting at the lease's deadline");
            assertThat(paused.isHeld()).isFalse();
            // Redis gave them back too: all five are free for others
            locks.acquire("exports", EXPORTS.withPermits(5, 5)).release();
            assertThatThrownBy(paused::release).isInstanceOf(LeaseLostException.class);
            assertThat(permitsHeld(meters, "semaphore")).isZero();
        });
    }

    private static double permitsHeld(MeterRegistry meters, String mode) {
        Gauge gauge = meters.find(LockMetrics.PERMITS_HELD).tag("name", "exports").tag("mode", mode).gauge();
        assertThat(gauge).as("the permits gauge of exports (%s)", mode).isNotNull();
        return gauge.value();
    }

    private static double attempts(MeterRegistry meters, String mode, String outcome) {
        Counter counter = meters.find(LockMetrics.ACQUIRE_ATTEMPTS)
            .tags("name", "exports", "mode", mode, "outcome", outcome)
            .counter();
        return (counter != null) ? counter.count() : 0;
    }

    private static double leasesLost(MeterRegistry meters, String mode) {
        Counter counter = meters.find(LockMetrics.LEASES_LOST).tags("name", "exports", "mode", mode).counter();
        return (counter != null) ? counter.count() : 0;
    }

    private static double renewals(MeterRegistry meters, String outcome) {
        Counter counter = meters.find(LockMetrics.RENEWALS).tag("outcome", outcome).counter();
        return (counter != null) ? counter.count() : 0;
    }
}
