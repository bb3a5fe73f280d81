package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The lock call timeout: a lock call that Redis does not answer fails with {@link LockUnavailableException} within
 * {@link RedisLockServiceBuilder#DEFAULT_CALL_TIMEOUT}, however long the client's own command timeout is (here 30 s,
 * Boot's default is 60 s), whether Redis is frozen or killed; locks work again once it is back.
 */
@RedisTest
class CallTimeoutTest {

    /** The client's command timeout: far longer than the lock call timeout, as an application's often is. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

    /** Generous room above the documented bound for a loaded 2-core machine; far below the client's timeout. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.redis.resume();
        this.clients.close();
    }

    @Test
    void aLockCallToAFrozenRedisFailsWithinTheCallTimeout() {
        RedisLockService locks = service();
        this.redis.pause();

        long start = System.nanoTime();
        LockOptions waiting = LockOptions.defaults().withWaitTime(Duration.ofSeconds(20));
        assertThatThrownBy(() -> locks.tryAcquire("frozen", waiting))
            .isInstanceOf(LockUnavailableException.class);
        assertThat(since(start)).isLessThan(RedisLockServiceBuilder.DEFAULT_CALL_TIMEOUT.plus(SLACK));

        start = System.nanoTime();
        assertThatThrownBy(() -> locks.async().acquire("frozen-async", LockOptions.defaults()).join())
            .isInstanceOf(CompletionException.class)
            .hasCauseInstanceOf(LockUnavailableException.class);
        assertThat(since(start)).isLessThan(RedisLockServiceBuilder.DEFAULT_CALL_TIMEOUT.plus(SLACK));

        this.redis.resume();
        Await.until(Duration.ofSeconds(10), () -> locks.tryAcquire("after", LockOptions.defaults()).isPresent(),
                "locks work again once Redis answers");
        Await.until(Duration.ofSeconds(10), () -> this.redis.lockField("distlock:{frozen}:lock", "owner") == null,
                "the timed-out grant, run late, is undone");
    }

    @Test
    void aLockCallToAKilledRedisFailsWithinTheCallTimeoutAndLocksWorkOnceItIsBack() {
        RedisLockService locks = service();
        this.redis.kill();

        long start = System.nanoTime();
        LockOptions waiting = LockOptions.defaults().withWaitTime(Duration.ofSeconds(20));
        assertThatThrownBy(() -> locks.tryAcquire("killed", waiting))
            .isInstanceOf(LockUnavailableException.class);
        assertThat(since(start)).isLessThan(RedisLockServiceBuilder.DEFAULT_CALL_TIMEOUT.plus(SLACK));

        this.redis.restart();
        Await.until(Duration.ofSeconds(20), () -> {
            try {
                return locks.tryAcquire("killed", LockOptions.defaults()).isPresent();
            }
            catch (LockUnavailableException ex) {
                return false; // still reconnecting
            }
        }, "locks work again once Redis is back");
    }

    @Test
    void aShorterCallTimeoutIsKeptAndTheClientsShorterTimeoutStillApplies() {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), CLIENT_TIMEOUT),
                b -> b.callTimeout(Duration.ofMillis(300)));
        RedisLockService shortClient = this.clients.service(
                this.clients.template(this.redis.port(), Duration.ofMillis(300)), b -> b);
        locks.ping();
        shortClient.ping();
        this.redis.pause();

        for (RedisLockService service : new RedisLockService[] { locks, shortClient }) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> service.tryAcquire("short", LockOptions.defaults()))
                .isInstanceOf(LockUnavailableException.class);
            assertThat(since(start)).isLessThan(Duration.ofMillis(300).plus(SLACK));
        }
    }

    @Test
    void theCallTimeoutIsCheckedWhenSet() {
        RedisLockServiceBuilder builder = RedisLockService.builder(new StringRedisTemplate());
        assertThatThrownBy(() -> builder.callTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("callTimeout must be between 1ms and 1 hour, but was PT0S");
        assertThatThrownBy(() -> builder.callTimeout(Duration.ofHours(2))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("callTimeout must be between");
        assertThatThrownBy(() -> builder.callTimeout(null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("callTimeout must not be null");
    }

    private RedisLockService service() {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), CLIENT_TIMEOUT),
                b -> b);
        locks.tryAcquire("warm-up", LockOptions.defaults()).orElseThrow().release(); // connected before the fault
        return locks;
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
