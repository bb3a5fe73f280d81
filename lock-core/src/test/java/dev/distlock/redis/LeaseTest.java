package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
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

    /**
     * A batch whose script fails (a fair lock's hash replaced by a string behind the holder's back: WRONGTYPE) fails
     * alone: the ten batches of 1,000 exclusive locks renewed in the same rounds keep their leases extended, the
     * failing one is retried and its lease reported lost at its deadline.
     */
    @Test
    void aBatchThatFailsStopsNoOtherBatch() throws Exception {
        Duration lease = Duration.ofSeconds(1);
        int held = 1000;
        AtomicLong renewed = new AtomicLong();
        List<LockEvent.RenewalFailed> failed = new CopyOnWriteArrayList<>();
        this.redis.call(("ACL SETUSER renewer reset on >renewer-secret " + AccessCheck.requiredAcl("distlock"))
            .split(" "));
        RedisLockService locks = this.clients.service(this.clients.template("renewer", "renewer-secret"),
                b -> b.watchdogLease(lease).listener(event -> {
                    if (event instanceof LockEvent.Renewed renewal) {
                        renewed.addAndGet(renewal.count());
                    }
                    else if (event instanceof LockEvent.RenewalFailed failure) {
                        failed.add(failure);
                    }
                }));
        List<CompletableFuture<LockHandle>> acquired = new ArrayList<>();
        for (int i = 0; i < held; i++) {
            acquired.add(locks.async().acquire("many:" + i, LockOptions.defaults()));
        }
        CompletableFuture.allOf(acquired.toArray(CompletableFuture[]::new)).join();
        LockHandle broken = locks.acquire("broken", LockOptions.defaults().withMode(LockMode.FAIR));
        LeaseLostException[] lost = new LeaseLostException[1];
        CountDownLatch lostLatch = new CountDownLatch(1);
        broken.onLeaseLost(ex -> {
            lost[0] = ex;
            lostLatch.countDown();
        });
        // the fair lock's key out of the user's reach: Redis refuses its renewal batch (the fair type's own)
        this.redis.call("ACL", "SETUSER", "renewer", "resetkeys", "~distlock:{many:*", "~distlock:client:*");
        long brokenAt = System.nanoTime();
        renewed.set(0);

        assertThat(lostLatch.await(10, TimeUnit.SECONDS)).as("the broken lock's lease reported lost").isTrue();
        assertThat(lost[0]).hasMessageContaining("ran out while Redis refused to renew it").hasMessageContaining(
                "NOPERM");
        assertThat(failed).as("renewal failures of the broken lock").isNotEmpty()
            .allMatch(failure -> failure.lock().key().equals("broken"));
        Await.until(Duration.ofSeconds(10), () -> System.nanoTime() - brokenAt > lease.multipliedBy(2).toNanos()
                && renewed.get() >= 4L * held, "four rounds of the exclusive locks over two leases");
        for (int i = 0; i < held; i++) {
            assertThat(Long.parseLong(this.redis.call("PTTL", hash("many:" + i)))).as("the lease of many:" + i)
                .isPositive();
        }
        assertThat(acquired).allMatch(lock -> lock.join().isHeld());
        locks.close();
    }

    private static String hash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
