package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TcpProxy;

/**
 * A renewal round that takes long (a slow network, a starved process, a round of many batches) must not stretch the
 * renewal period by its own length: the next round starts one interval after this one started, or at once.
 */
@RedisTest
class SlowRenewalRoundTest {

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

    /**
     * With 2.5 s each way between the service and Redis, a round (one batch) takes 5 s and reaches Redis 2.5 s after it
     * started. Lease 8 s, interval 4 s: a round started when the previous one ended (+ the interval) would reach Redis
     * 11.5 s after the previous round started, 1 s after the lease it set ran out (at 2.5 + 8 s); a round started one
     * interval after the previous one started (at once, since that took longer) reaches it at 7.5 s, 3 s before (a
     * margin for a loaded machine).
     */
    @Test
    void aRoundLongerThanTheIntervalDoesNotDelayTheNextByItsLength() throws Exception {
        Duration lease = Duration.ofSeconds(8);
        Duration oneWay = Duration.ofMillis(2500);
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        try (TcpProxy proxy = TcpProxy.start(this.redis.port())) {
            RedisLockService locks = this.clients.service(this.clients.template(proxy.port(), Duration.ofSeconds(20)),
                    b -> b.watchdogLease(lease).renewalInterval(Duration.ofSeconds(4)).callTimeout(Duration.ofSeconds(20))
                        .listener(event -> {
                            if (event instanceof LockEvent.LeaseLost leaseLost) {
                                lost.add(leaseLost.reason());
                            }
                        }));
            LockHandle held = locks.acquire("slow:round");
            proxy.latency(oneWay);

            // slow rounds: the old schedule loses the lease at the second (at most about 14.5 s in)
            long end = System.nanoTime() + Duration.ofSeconds(18).toNanos();
            while (System.nanoTime() - end < 0) {
                assertThat(lost).as("leases lost").isEmpty();
                assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{slow:round}:lock")))
                    .as("the lease in Redis").isPositive();
                Thread.sleep(100);
            }
            // the handle counts a lease from when its renewal was sent, so it may not vouch for it while answers
            // take 4.8 s; once they are quick again, the next round confirms it
            proxy.latency(Duration.ZERO);
            Await.until(Duration.ofSeconds(15), held::isHeld, "the handle confirms the lease again");
            assertThat(lost).as("leases lost").isEmpty();
            locks.close();
        }
    }
}
