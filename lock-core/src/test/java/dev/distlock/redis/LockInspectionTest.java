package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.HeldLock;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** What a service tells about its locks: held-lock snapshots, names in events, the watchdog's lag, and a ping. */
@RedisTest
class LockInspectionTest {

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
    void heldLocksListsEachOwnersHoldUntilItIsReleased() {
        RedisLockService locks = this.clients.service();
        Instant before = Instant.now();
        LockHandle outer = locks.acquire("stock:1", LockOptions.defaults().withName("Stock.reserve"));
        LockHandle inner = locks.acquire("stock:1");
        LockHandle report = locks.acquire("report",
                LockOptions.defaults().withMode(LockMode.READ).withOwner("task-7").withLeaseTime(Duration.ofMinutes(1)));
        Instant after = Instant.now();

        List<HeldLock> held = locks.heldLocks();
        assertThat(held).extracting(HeldLock::key).containsExactly("stock:1", "report");
        HeldLock stock = held.get(0);
        assertThat(stock.name()).isEqualTo("Stock.reserve");
        assertThat(stock.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(stock.since()).isBetween(before, after);
        assertThat(stock.leaseDeadline()).isAfter(after).isBefore(after.plusSeconds(31));
        assertThat(stock.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(stock.owner()).isEqualTo("thread " + Thread.currentThread().getName());
        assertThat(stock.holdCount()).isEqualTo(2);
        assertThat(stock.watchdog()).isTrue();
        HeldLock read = held.get(1);
        assertThat(read.name()).isEqualTo("unnamed");
        assertThat(read.mode()).isEqualTo(LockMode.READ);
        assertThat(read.owner()).isEqualTo("task-7");
        assertThat(read.holdCount()).isEqualTo(1);
        assertThat(read.watchdog()).isFalse();
        assertThat(read.toString()).doesNotContain(report.ownerToken());
        assertThatThrownBy(() -> held.add(stock)).isInstanceOf(UnsupportedOperationException.class);

        inner.release();
        assertThat(locks.heldLocks()).extracting(HeldLock::holdCount).containsExactly(1, 1);
        outer.release();
        assertThat(locks.heldLocks()).extracting(HeldLock::key).containsExactly("report");
        report.release();
        assertThat(locks.heldLocks()).isEmpty();
        assertThat(held).hasSize(2); // a snapshot does not follow the locks
    }

    @Test
    void aLostLeaseLeavesTheHeldLocks() {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(1500)));
        LockHandle lock = locks.acquire("job:1");
        assertThat(locks.heldLocks()).hasSize(1);
        this.redis.call("DEL", hash("job:1"));
        Await.until(Duration.ofSeconds(10), () -> !lock.isHeld(), "the watchdog finds the lock gone");
        assertThat(locks.heldLocks()).isEmpty();
    }

    @Test
    void overdueRenewalsCountLeasesTheWatchdogCouldNotRenewForTwoIntervals() {
        RedisLockService locks = this.clients.service(quickTemplate(),
                b -> b.watchdogLease(Duration.ofSeconds(6)).renewalInterval(Duration.ofMillis(200)));
        assertThat(locks.renewalInterval()).isEqualTo(Duration.ofMillis(200));
        LockHandle lock = locks.acquire("job:1");
        LockHandle fixed = locks.acquire("job:2", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        assertThat(locks.overdueRenewalCount()).isZero();

        this.redis.pause();
        try {
            Await.until(Duration.ofSeconds(5), () -> locks.overdueRenewalCount() == 1,
                    "the watched lease is overdue while Redis does not answer (the fixed lease is not watched)");
        }
        finally {
            this.redis.resume();
        }
        Await.until(Duration.ofSeconds(5), () -> locks.overdueRenewalCount() == 0,
                "the watchdog catches up once Redis answers");
        assertThat(lock.isHeld()).as("caught up before the lease ran out").isTrue();
        lock.release();
        fixed.release();
    }

    @Test
    void pingAnswersThroughTheServicesConnectionAndFailsWhenRedisIsDown() {
        RedisLockService locks = this.clients.service(quickTemplate(), b -> b);
        assertThat(locks.ping()).isPositive();
        this.redis.stop();
        assertThatThrownBy(locks::ping).isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("PING");
    }

    /** A client whose commands time out after 200 ms, so that a stopped or paused Redis fails calls quickly. */
    private StringRedisTemplate quickTemplate() {
        return this.clients.template(this.redis.port(), Duration.ofMillis(200));
    }

    private static String hash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
