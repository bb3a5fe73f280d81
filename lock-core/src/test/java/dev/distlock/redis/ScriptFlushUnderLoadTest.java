package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * {@code SCRIPT FLUSH} again and again while threads and a non-blocking caller lock and release on one service: every
 * NOSCRIPT is recovered without an error reaching a caller, without two holders at once, and without a caller's calls
 * running in another order than it sent them.
 */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScriptFlushUnderLoadTest {

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void flushesUnderLoadReachNoCallerAndReorderNothing() throws Exception {
        RedisLockService locks = this.clients.service();
        ScriptFlushLoad load = new ScriptFlushLoad(locks, () -> this.redis.call(System.getProperty("flushCmd", "SCRIPT FLUSH").split(" ")),
                Duration.ofSeconds(6));
        load.run();

        assertThat(load.errors).as("errors that reached a caller").isEmpty();
        assertThat(load.overlaps.get()).as("two holders of one lock at once").isZero();
        assertThat(load.reordered.get()).as("a tryAcquire sent after a release ran before it").isZero();
        assertThat(load.flushes.get()).as("flushes").isGreaterThan(20);
        assertThat(load.cycles.get()).as("blocking cycles").isGreaterThan(50);
        assertThat(load.asyncCycles.get()).as("non-blocking cycles").isGreaterThan(50);
    }
}
