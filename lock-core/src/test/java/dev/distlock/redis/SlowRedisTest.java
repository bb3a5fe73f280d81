package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseExpiredOnArrivalException;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TcpProxy;

/** A slow or stalled Redis: no expired lock is handed out, and callers hear of the failure within one timeout. */
@RedisTest
class SlowRedisTest {

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
    void aGrantWhoseReplyComesAfterItsLeaseEndedIsNotHandedOut() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(this.redis.port())) {
            RedisLockService locks = this.clients.service(
                    this.clients.template(proxy.port(), Duration.ofSeconds(10)), b -> b);
            locks.ping(); // connect before the latency starts
            proxy.latency(Duration.ofMillis(250)); // each way: the reply comes 500 ms after the request

            assertThatThrownBy(() -> locks.acquire("slow",
                    LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)).withWaitTime(Duration.ZERO)))
                .isInstanceOf(LeaseExpiredOnArrivalException.class)
                .hasMessageContaining("longer than the lease");
            assertThat(locks.heldLocks()).isEmpty();
        }
    }

    @Test
    void whenRedisStopsAnsweringTheCallerHearsWithinOneCommandTimeout() {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), Duration.ofMillis(600)),
                b -> b);
        locks.ping();
        this.redis.pause();
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.tryAcquire("stalled")).isInstanceOf(LockUnavailableException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        this.redis.resume();
        // the undo of the timed-out attempt happens off the caller's path: not a second command timeout
        assertThat(took).isLessThan(Duration.ofMillis(1100));
        // Redis runs the late grant when it resumes, then the undo's release: the lock has no owner (the hash may
        // stay, keeping its fencing token for the token retention); a grant left in place would keep its 30 s lease
        Await.until(Duration.ofSeconds(10), () -> this.redis.lockField("distlock:{stalled}:lock", "owner") == null,
                "the attempt that ran late is undone");
        assertThat(this.clients.service().tryAcquire("stalled", LockOptions.defaults())).as("free for others")
            .isPresent();
    }
}
