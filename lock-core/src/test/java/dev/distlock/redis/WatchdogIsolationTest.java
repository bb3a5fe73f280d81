package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Nothing besides Redis itself stops the watchdog from renewing: not a listener, not pub/sub housekeeping. */
@RedisTest
class WatchdogIsolationTest {

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
    void aListenerThatThrowsFromRenewedStopsNoRenewal() {
        Duration lease = Duration.ofMillis(900);
        AtomicInteger renewedCalls = new AtomicInteger();
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(lease).listener(new LockListener() {
            @Override
            public void renewed(int count) {
                renewedCalls.incrementAndGet();
                throw new IllegalStateException("a broken metrics listener");
            }

            @Override
            public void leaseLost(LockHandle lock, LeaseLostException reason) {
                lost.add(reason);
            }
        }));
        // two lock types: two renewal batches per round
        LockHandle exclusive = locks.acquire("report:1");
        LockHandle fair = locks.acquire("report:2", LockOptions.defaults().withMode(LockMode.FAIR));

        // every round calls the listener at least once, and three leases pass in 9 or more rounds
        Await.until(Duration.ofSeconds(30), () -> renewedCalls.get() >= 9, "nine renewal rounds");

        assertThat(ttl("distlock:{report:1}:lock")).as("the exclusive lock's lease in Redis").isPositive();
        assertThat(ttl("distlock:{report:2}:fair:lock")).as("the fair lock's lease in Redis").isPositive();
        assertThat(exclusive.isHeld()).isTrue();
        assertThat(fair.isHeld()).isTrue();
        assertThat(lost).isEmpty();
        exclusive.release();
        fair.release();
    }

    private long ttl(String key) {
        return Long.parseLong(this.redis.call("PTTL", key));
    }
}
