package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.RedisCallback;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * 10,000 locks held at once are renewed in batches from one thread, not a thread or timer per lock, each round's
 * batches pipelined on the shared connection.
 */
@RedisTest
class WatchdogScaleTest {

    private static final int LOCKS = 10_000;

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
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tenThousandLocksAreRenewedInBatchesByABoundedNumberOfThreads() throws Exception {
        Duration lease = Duration.ofSeconds(3);
        AtomicLong renewedLeases = new AtomicLong();
        AtomicInteger renewalBatches = new AtomicInteger();
        Queue<LockEvent> failures = new ConcurrentLinkedQueue<>();
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(lease).listener(event -> {
            if (event instanceof LockEvent.Renewed renewed) {
                renewedLeases.addAndGet(renewed.count());
                renewalBatches.incrementAndGet();
            }
            else if (event instanceof LockEvent.LeaseLost || event instanceof LockEvent.RenewalFailed) {
                failures.add(event);
            }
        }));
        int threadsBefore = Thread.activeCount();
        List<LockHandle> handles = new ArrayList<>(LOCKS);
        for (int i = 0; i < LOCKS; i++) {
            handles.add(locks.acquire("bulk:" + i));
        }
        assertThat(locks.renewingCount()).isEqualTo(LOCKS);

        // Outlive two full leases: every lock must still be held, renewed by the watchdog.
        long end = System.nanoTime() + lease.multipliedBy(2).plusMillis(500).toNanos();
        int peakThreads = Thread.activeCount();
        while (System.nanoTime() < end) {
            peakThreads = Math.max(peakThreads, Thread.activeCount());
            Thread.sleep(50);
        }
        assertThat(handles).allMatch(LockHandle::isHeld);
        // one key per lock, and the service's own instance record (InstanceRecord)
        assertThat(Long.parseLong(this.redis.call("DBSIZE"))).isEqualTo(LOCKS + 1);
        assertThat(this.redis.call("EXISTS", "distlock:instance:" + locks.instanceId())).isEqualTo("1");
        // every lease in Redis, not only as the handles believe: a lease not renewed all along would have run out
        List<Object> ttls = this.clients.template().executePipelined((RedisCallback<Object>) connection -> {
            for (int i = 0; i < LOCKS; i++) {
                connection.keyCommands().pTtl(("distlock:{bulk:" + i + "}:lock").getBytes());
            }
            return null;
        });
        assertThat(ttls).as("the leases in Redis after two lease lengths").hasSize(LOCKS)
            .allMatch(ttl -> ((Number) ttl).longValue() > 0);
        assertThat(failures).as("renewals failed or leases lost").isEmpty();
        assertThat(peakThreads - threadsBefore).as("threads added while holding %d locks", LOCKS).isLessThan(10);
        // every renewal round renews all locks in batches of at most 100
        assertThat(renewedLeases.get()).isGreaterThanOrEqualTo(2L * LOCKS);
        assertThat(renewedLeases.get() / renewalBatches.get()).isGreaterThanOrEqualTo(LeaseWatchdog.BATCH_SIZE / 2);

        for (LockHandle handle : handles) {
            handle.release();
        }
        assertThat(locks.renewingCount()).isZero();
    }
}
