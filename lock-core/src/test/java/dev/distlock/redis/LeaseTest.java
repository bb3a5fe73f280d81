package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.NotLockOwnerException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Leases: expiry of abandoned locks, watchdog renewal, and lost leases reported to the holder. */
@RedisTest
class LeaseTest {

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
    void anAbandonedLockBecomesFreeWhenItsLeaseEndsAndNotBefore() {
        RedisLockService crashed = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(800)));
        RedisLockService other = this.clients.service();
        LockHandle abandoned = crashed.acquire("job");
        Instant leaseEnd = abandoned.leaseDeadline();
        crashed.close(); // the holder is gone: no release, no renewal

        assertThat(other.tryAcquire("job")).isEmpty();
        try (LockHandle next = other.acquire("job", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)))) {
            // Redis expires the lease no earlier than the holder's own deadline, which was measured before sending.
            assertThat(Instant.now()).isAfterOrEqualTo(leaseEnd);
            assertThat(next.isHeld()).isTrue();
        }
    }

    @Test
    void aFixedLeaseIsNotRenewedAndItsLateReleaseReportsTheLoss() {
        RedisLockService locks = this.clients.service();
        LockHandle lock = locks.acquire("report", LockOptions.defaults().withLeaseTime(Duration.ofMillis(300)));
        assertThat(locks.renewingCount()).isZero();
        Await.until(Duration.ofSeconds(5), () -> this.redis.call("EXISTS", hash("report")).equals("0"),
                "the fixed lease expires in Redis");
        assertThat(lock.isHeld()).isFalse();
        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class)
            .isNotInstanceOf(NotLockOwnerException.class)
            .hasMessageContaining("'report'");
    }

    @Test
    void theWatchdogKeepsALockAliveForMoreThanThreeLeases() throws Exception {
        // long enough that a loaded 2-core CI machine renews in time; the point is the count of leases outlived
        Duration lease = Duration.ofMillis(1200);
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(lease));
        RedisLockService competitor = this.clients.service();
        LockHandle lock = locks.acquire("long-job");
        long end = System.nanoTime() + lease.multipliedBy(4).toNanos();
        while (System.nanoTime() < end) {
            assertThat(lock.isHeld()).isTrue();
            assertThat(competitor.tryAcquire("long-job")).isEmpty();
            Thread.sleep(100);
        }
        assertThat(Long.parseLong(this.redis.call("PTTL", hash("long-job")))).isPositive();
        lock.release();
        assertThat(locks.renewingCount()).isZero();
        assertThat(competitor.tryAcquire("long-job")).isPresent();
    }

    @Test
    void aLockDeletedBehindTheHoldersBackIsReportedLost() throws Exception {
        List<LeaseLostException> reported = new CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600))
            .listener(event -> {
                if (event instanceof LockEvent.LeaseLost leaseLost) {
                    reported.add(leaseLost.reason());
                }
            }));
        LockHandle lock = locks.acquire("wiki:1");
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<LeaseLostException> reason = new AtomicReference<>();
        lock.onLeaseLost(ex -> {
            reason.set(ex);
            lost.countDown();
        });

        this.redis.call("DEL", hash("wiki:1"));

        assertThat(lost.await(5, TimeUnit.SECONDS)).as("the holder is told").isTrue();
        assertThat(reason.get().key()).isEqualTo("wiki:1");
        assertThat(lock.isHeld()).isFalse();
        assertThat(reported).hasSize(1);
        assertThat(locks.renewingCount()).isZero();
        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class);
        // a callback registered after the loss runs at once
        CountDownLatch late = new CountDownLatch(1);
        lock.onLeaseLost(ex -> late.countDown());
        assertThat(late.getCount()).isZero();
    }

    @Test
    void aLockTakenByAnotherOwnerIsReportedLostAndItsLockIsLeftAlone() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        RedisLockService thief = this.clients.service();
        LockHandle lock = locks.acquire("page");
        CountDownLatch lost = new CountDownLatch(1);
        lock.onLeaseLost(ex -> lost.countDown());

        this.redis.call("DEL", hash("page"));
        LockHandle stolen = thief.acquire("page");

        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(lock::release).isInstanceOf(NotLockOwnerException.class);
        assertThat(stolen.isHeld()).isTrue();
        assertThat(this.redis.lockField(hash("page"), "owner")).isEqualTo(stolen.ownerToken());
        stolen.release();
    }

    @Test
    void whenRedisStaysUnreachableTheLeaseIsLostAtItsDeadline() throws Exception {
        Duration lease = Duration.ofMillis(900);
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), Duration.ofMillis(200)),
                b -> b.watchdogLease(lease));
        LockHandle lock = locks.acquire("offline");
        CountDownLatch lost = new CountDownLatch(1);
        AtomicReference<LeaseLostException> reason = new AtomicReference<>();
        lock.onLeaseLost(ex -> {
            reason.set(ex);
            lost.countDown();
        });
        this.redis.kill();
        try {
            assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(reason.get()).hasMessageContaining("could not be reached");
            assertThat(lock.isHeld()).isFalse();
        }
        finally {
            this.redis.restart();
        }
    }

    private static String hash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
