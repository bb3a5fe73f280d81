package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.spring.BootHealth;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.Await;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The {@code distlock} health contributor: UP with its details, DOWN while the watchdog is behind, DOWN within its
 * bound while Redis does not answer.
 */
@RedisTest
class LockServiceHealthIndicatorTest {

    /** Generous room above a documented bound for a loaded 2-core machine; far below Boot's 60 s command timeout. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    /** The lock call timeout of the outage cases (distlock.redis.call-timeout), half its default so they end sooner. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

    @Test
    void aWatchdogThatFallsBehindTurnsHealthDownWhileRedisStillAnswers(RedisNode redis) {
        try (FaultProxy proxy = FaultProxy.start(redis.port())) {
            LockContexts.runner(proxy.port())
                .withConfiguration(AutoConfigurations.of(BootHealth.autoConfigurations()))
                .withPropertyValues("distlock.watchdog.lease=10s", "distlock.watchdog.renewal-interval=100ms")
                .run(context -> {
                    BootHealth idle = BootHealth.of(context);
                    assertThat(idle.status()).isEqualTo("UP");
                    assertThat(idle.details()).containsEntry("redis", "reachable")
                        .containsEntry("heldLocks", 0)
                        .containsEntry("renewing", 0)
                        .containsEntry("overdueRenewals", 0)
                        .containsEntry("renewalInterval", "PT0.1S");

                    LockHandle lock = context.getBean(LockService.class).acquire("job:1");
                    // Redis answers, within the health check's PING bound, but each renewal's answer comes more than
                    // two renewal intervals after it was sent: the watchdog falls behind. (The proxy delays each reply
                    // in turn, so a PING may wait for a renewal's reply before its own: two delays, half the bound.)
                    proxy.delayReplies(Duration.ofMinutes(1), HealthPing.TIMEOUT.dividedBy(4));
                    Await.until(Duration.ofSeconds(10), () -> {
                        BootHealth behind = BootHealth.of(context);
                        return behind.status().equals("DOWN") && "reachable".equals(behind.details().get("redis"))
                                && Integer.valueOf(1).equals(behind.details().get("heldLocks"))
                                && Integer.valueOf(1).equals(behind.details().get("overdueRenewals"));
                    }, "health DOWN with Redis reachable, the lease two renewal intervals overdue");

                    proxy.delayReplies(Duration.ZERO, Duration.ZERO);
                    Await.until(Duration.ofSeconds(10), () -> BootHealth.of(context).status().equals("UP"),
                            "health is UP again once the watchdog catches up");
                    assertThat(lock.isHeld()).isTrue();
                    lock.release();
                });
        }
    }

    @Test
    void aFrozenRedisTurnsHealthDownWithinItsBoundAndLockCallsFailWithinTheCallTimeout(RedisNode redis) {
        outage(redis, () -> redis.pause(), () -> redis.resume());
    }

    @Test
    void aKilledRedisTurnsHealthDownWithinItsBoundAndLockCallsFailWithinTheCallTimeout(RedisNode redis) {
        outage(redis, () -> redis.kill(), () -> redis.restart());
    }

    /**
     * With Boot's default Redis settings (a 60 s command timeout): while Redis does not answer, health is DOWN within
     * about its PING timeout, every time it is asked, and a lock call fails with LockUnavailableException within about
     * the lock call timeout; once Redis is back, health is UP and locks work.
     */
    private static void outage(RedisNode redis, Runnable fault, Runnable repair) {
        LockContexts.runner(redis)
            .withPropertyValues("distlock.redis.call-timeout=" + CALL_TIMEOUT.toMillis() + "ms")
            .withConfiguration(AutoConfigurations.of(BootHealth.autoConfigurations()))
            .run(context -> {
                LockService locks = context.getBean(LockService.class);
                locks.acquire("warm-up").release(); // connected before the fault
                assertThat(BootHealth.of(context).status()).isEqualTo("UP");
                try {
                    fault.run();
                    for (int check = 0; check < 3; check++) { // a PING still in flight is not sent again
                        long start = System.nanoTime();
                        BootHealth down = BootHealth.of(context);
                        assertThat(since(start)).as("health answers within its bound")
                            .isLessThan(HealthPing.TIMEOUT.plus(SLACK));
                        assertThat(down.status()).isEqualTo("DOWN");
                        assertThat(down.details()).containsEntry("redis", "unreachable").containsKey("error");
                    }
                    LockOptions waiting = LockOptions.defaults().withWaitTime(Duration.ofSeconds(20));
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> locks.tryAcquire("booking:7", waiting))
                        .isInstanceOf(LockUnavailableException.class);
                    assertThat(since(start)).as("a lock call fails within the lock call timeout")
                        .isLessThan(CALL_TIMEOUT.plus(SLACK));
                }
                finally {
                    repair.run();
                }
                Await.until(Duration.ofSeconds(20), () -> BootHealth.of(context).status().equals("UP"),
                        "health is UP once Redis answers again");
                Await.until(Duration.ofSeconds(20), () -> {
                    try {
                        return locks.tryAcquire("booking:7", LockOptions.defaults()).isPresent();
                    }
                    catch (LockUnavailableException ex) {
                        return false;
                    }
                }, "locks work once Redis answers again");
            });
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
