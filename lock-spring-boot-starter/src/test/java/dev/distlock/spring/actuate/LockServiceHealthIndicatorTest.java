package dev.distlock.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.spring.BootHealth;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The {@code distlock} health contributor: UP with its details, DOWN while the watchdog is behind. */
@RedisTest
class LockServiceHealthIndicatorTest {

    @Test
    void aWatchdogThatFallsBehindTurnsHealthDownWhileRedisStillAnswers(RedisNode redis) {
        LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(BootHealth.autoConfigurations()))
            .withPropertyValues("distlock.watchdog.lease=10s", "distlock.watchdog.renewal-interval=100ms")
            .withBean(StuckRenewals.class)
            .run(context -> {
                BootHealth idle = BootHealth.of(context);
                assertThat(idle.status()).isEqualTo("UP");
                assertThat(idle.details()).containsEntry("redis", "reachable")
                    .containsEntry("heldLocks", 0)
                    .containsEntry("renewing", 0)
                    .containsEntry("overdueRenewals", 0)
                    .containsEntry("renewalInterval", "PT0.1S");

                StuckRenewals stuck = context.getBean(StuckRenewals.class);
                LockHandle lock = context.getBean(LockService.class).acquire("job:1");
                try {
                    // a listener that blocks holds up the watchdog's thread, as a misbehaving one would
                    assertThat(stuck.blocking.await(10, TimeUnit.SECONDS)).isTrue();
                    Await.until(Duration.ofSeconds(10), () -> BootHealth.of(context).status().equals("DOWN"),
                            "health goes DOWN once the lease is two renewal intervals overdue");
                    BootHealth behind = BootHealth.of(context);
                    assertThat(behind.details()).containsEntry("redis", "reachable")
                        .containsEntry("heldLocks", 1)
                        .containsEntry("overdueRenewals", 1);
                }
                finally {
                    stuck.unblock.countDown();
                }
                Await.until(Duration.ofSeconds(10), () -> BootHealth.of(context).status().equals("UP"),
                        "health is UP again once the watchdog catches up");
                assertThat(lock.isHeld()).isTrue();
                lock.release();
            });
    }

    /** Blocks the watchdog's thread at its first renewal until told to go on. */
    static class StuckRenewals implements LockEventListener {

        final CountDownLatch blocking = new CountDownLatch(1);

        final CountDownLatch unblock = new CountDownLatch(1);

        @Override
        public void onEvent(LockEvent event) {
            if (!(event instanceof LockEvent.Renewed)) {
                return;
            }
            this.blocking.countDown();
            try {
                this.unblock.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
