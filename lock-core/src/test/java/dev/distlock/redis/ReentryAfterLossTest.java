package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A re-entry only ever re-enters: after the owner's lease was lost it never silently takes a fresh lock under the old
 * hold. Each acquisition keeps its own lease, and a released handle's callbacks are gone.
 */
@RedisTest
class ReentryAfterLossTest {

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
    void aReentryAfterTheOuterLeaseWasLostReportsTheLossAndTakesANewHold() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle outer = locks.acquire("page:1");
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        outer.onLeaseLost(lost::add);

        // the outer lease is lost (eviction, failover) before the watchdog notices; another owner takes and frees it
        this.redis.call("DEL", "distlock:{page:1}:lock");
        long otherToken;
        try (LockHandle between = other.acquire("page:1")) {
            otherToken = between.fencingToken();
        }

        LockHandle inner = locks.acquire("page:1");
        assertThat(outer.isHeld()).as("the outer hold was lost while another owner held the lock").isFalse();
        assertThat(lost).hasSize(1);
        assertThat(inner.isHeld()).isTrue();
        assertThat(inner.fencingToken()).isGreaterThan(otherToken);
        assertThat(inner.ownerToken()).isNotEqualTo(outer.ownerToken());
        assertThatThrownBy(outer::release).isInstanceOf(LeaseLostException.class);
        assertThat(this.redis.lockField("distlock:{page:1}:lock", "owner")).isEqualTo(inner.ownerToken());
        inner.release();
        assertThat(this.redis.lockField("distlock:{page:1}:lock", "owner")).isNull();
    }

    @Test
    void aReadReentryAfterTheOuterReadLeaseWasLostReportsTheLoss() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockOptions read = LockOptions.defaults().withMode(LockMode.READ);
        LockHandle outer = locks.acquire("doc", read);

        this.redis.call("DEL", "distlock:{doc}:rw:readers", "distlock:{doc}:rw:reader:" + outer.ownerToken());
        long writerToken;
        try (LockHandle writer = other.acquire("doc", LockOptions.defaults().withMode(LockMode.WRITE))) {
            writerToken = writer.fencingToken();
        }

        LockHandle inner = locks.acquire("doc", read);
        assertThat(outer.isHeld()).isFalse();
        assertThat(inner.fencingToken()).isGreaterThan(writerToken);
        assertThatThrownBy(outer::release).isInstanceOf(LeaseLostException.class);
        inner.release();
    }

    @Test
    void aFixedLeasePastItsDeadlineIsNotReenteredAfterAnotherOwnerHeldTheLock() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle stale = locks.acquire("report", LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)));
        Await.until(Duration.ofSeconds(5), () -> "0".equals(this.redis.call("EXISTS", "distlock:{report}:lock")),
                "the fixed lease expires in Redis");
        other.acquire("report").release();

        LockHandle fresh = locks.acquire("report", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(5)));
        assertThat(stale.isHeld()).isFalse();
        assertThatThrownBy(stale::release).isInstanceOf(LeaseLostException.class);
        assertThat(fresh.isHeld()).isTrue();
        assertThat(fresh.fencingToken()).isGreaterThan(stale.fencingToken());
        fresh.release();
        assertThat(this.redis.lockField("distlock:{report}:lock", "owner")).isNull();
    }

    @Test
    void releasedReentriesLeaveNoLeaseLostCallbacksBehind() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(3)));
        LockHandle outer = locks.acquire("hot");
        AtomicInteger outerCalls = new AtomicInteger();
        AtomicInteger innerCalls = new AtomicInteger();
        outer.onLeaseLost(reason -> outerCalls.incrementAndGet());
        for (int i = 0; i < 2_000; i++) {
            LockHandle inner = locks.acquire("hot");
            inner.onLeaseLost(reason -> innerCalls.incrementAndGet());
            inner.release();
        }
        LockHandle open = locks.acquire("hot");
        AtomicInteger openCalls = new AtomicInteger();
        open.onLeaseLost(reason -> openCalls.incrementAndGet());

        this.redis.call("DEL", "distlock:{hot}:lock");
        Await.until(Duration.ofSeconds(10), () -> outerCalls.get() == 1, "the watchdog reports the loss");
        Await.until(Duration.ofSeconds(2), () -> openCalls.get() == 1, "the unreleased inner handle is told too");
        assertThat(innerCalls).as("released handles are not told").hasValue(0);
        // a callback added to a released handle is never called
        LockHandle released = locks.acquire("hot");
        released.release();
        released.onLeaseLost(reason -> innerCalls.incrementAndGet());
        assertThat(innerCalls).hasValue(0);
    }

    @Test
    void aNestedWatchdogAcquisitionDoesNotKeepAnOuterFixedLeaseAlive() {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(3))
            .renewalInterval(Duration.ofMillis(100)));
        LockHandle outer = locks.acquire("batch", LockOptions.defaults().withLeaseTime(Duration.ofMillis(1500)));
        LockHandle inner = locks.acquire("batch");
        assertThat(locks.renewingCount()).isEqualTo(1);
        inner.release();

        assertThat(locks.renewingCount()).as("nothing open asks for renewal").isZero();
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{batch}:lock"))).isBetween(1L, 1500L);
        Await.until(Duration.ofSeconds(5), () -> "0".equals(this.redis.call("EXISTS", "distlock:{batch}:lock")),
                "the lock expires at the outer's fixed deadline");
        assertThat(outer.isHeld()).isFalse();
        assertThatThrownBy(outer::release).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void aLongerReentryLeaseEndsWithItsRelease() {
        RedisLockService locks = this.clients.service();
        LockOptions reader = LockOptions.defaults().withMode(LockMode.READ);
        LockHandle outer = locks.acquire("catalog", reader.withLeaseTime(Duration.ofSeconds(4)));
        LockHandle inner = locks.acquire("catalog", reader.withLeaseTime(Duration.ofSeconds(7)));
        String readerHash = "distlock:{catalog}:rw:reader:" + outer.ownerToken();
        assertThat(Long.parseLong(this.redis.call("PTTL", readerHash))).isGreaterThan(4000L);
        inner.release();
        // the reader's lease is its score in the readers' set; its hash outlives it for a retried release to read
        String[] time = this.redis.call("TIME").split("\n");
        long redisMillis = Long.parseLong(time[0].trim()) * 1000 + Long.parseLong(time[1].trim()) / 1000;
        long leaseEnd = Long.parseLong(this.redis.call("ZSCORE", "distlock:{catalog}:rw:readers", outer.ownerToken())
            .trim());
        // + 1: an end written rounds Redis's clock up to the ms, this read rounds it down
        assertThat(leaseEnd - redisMillis).isBetween(1L, 4001L);
        assertThat(outer.leaseDeadline()).isBefore(java.time.Instant.now().plusMillis(4001));
        outer.release();

        LockHandle exclusiveOuter = locks.acquire("order", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(4)));
        LockHandle exclusiveInner = locks.acquire("order", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(7)));
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{order}:lock"))).isGreaterThan(4000L);
        exclusiveInner.release();
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{order}:lock"))).isBetween(1L, 4000L);
        exclusiveOuter.release();
    }
}
