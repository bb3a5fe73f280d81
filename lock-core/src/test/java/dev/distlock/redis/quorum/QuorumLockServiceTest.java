package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;

/** Quorum mode with every master up, or one paused: grants, refusals, reentrancy, key sets and bad input. */
class QuorumLockServiceTest extends QuorumTest {

    /** How many masters hold the lock of {@code key} (for any owner). */
    static long holders(List<RedisNode> masters, String key) {
        return masters.stream()
            .filter(RedisNode::isRunning)
            .filter(master -> master.lockField("distlock:{" + key + "}:lock", "owner") != null)
            .count();
    }

    @Test
    void aLockIsTakenOnEveryMasterAndReleasedOnEveryMaster() {
        QuorumLockService locks = this.clients.service();
        assertThat(locks.masterCount()).isEqualTo(5);
        assertThat(locks.quorum()).isEqualTo(3);

        LockHandle lock = locks.acquire("order:1");
        assertThat(lock.isHeld()).isTrue();
        assertThat(lock.key()).isEqualTo("order:1");
        assertThat(lock.fencingToken()).isPositive();
        assertThat(holders(masters, "order:1")).isEqualTo(5);
        assertThat(lock.leaseDeadline()).isAfter(Instant.now());

        lock.release();
        assertThat(lock.isHeld()).isFalse();
        assertThat(holders(masters, "order:1")).isZero();
        lock.release(); // a second release does nothing
    }

    @Test
    void anotherOwnerIsRefusedWhileTheLockIsHeldAndGetsItAfterwards() {
        QuorumLockService first = this.clients.service();
        QuorumLockService second = this.clients.service();
        LockHandle held = first.acquire("stock");

        assertThat(second.tryAcquire("stock")).isEmpty();
        assertThatThrownBy(() -> second.acquire("stock", LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
            .isInstanceOfSatisfying(LockTimeoutException.class,
                    timeout -> assertThat(timeout.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(300)));
        assertThat(holders(masters, "stock")).isEqualTo(5); // the refused attempts left nothing behind

        held.release();
        try (LockHandle next = second.acquire("stock", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aWaiterGetsTheLockWhenTheHolderReleasesIt() throws Exception {
        QuorumLockService first = this.clients.service();
        QuorumLockService second = this.clients.service();
        LockHandle held = first.acquire("queue");
        Thread waiter = new Thread(() -> second
            .acquire("queue", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10))).release());
        waiter.start();
        Await.until(Duration.ofSeconds(5), () -> waiter.getState() == Thread.State.TIMED_WAITING, "waiter waits");
        held.release();
        waiter.join(10_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(holders(masters, "queue")).isZero();
    }

    @Test
    void reentrantAcquisitionsShareTheOuterTokenAndKeepTheLockUntilTheLastRelease() {
        QuorumLockService locks = this.clients.service();
        QuorumLockService other = this.clients.service();
        LockHandle outer = locks.acquire("report");
        LockHandle inner = locks.acquire("report");
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());

        inner.release();
        assertThat(outer.isHeld()).isTrue();
        assertThat(other.tryAcquire("report")).isEmpty();

        outer.release();
        try (LockHandle next = other.tryAcquire("report").orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(outer.fencingToken());
        }
    }

    @Test
    void executeLockedRunsTheWorkUnderTheLockAndReleasesIt() {
        QuorumLockService locks = this.clients.service();
        String result = locks.executeLocked("job", LockOptions.defaults(), lock -> {
            assertThat(lock.isHeld()).isTrue();
            assertThat(holders(masters, "job")).isEqualTo(5);
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(holders(masters, "job")).isZero();
    }

    @Test
    void aKeySetIsTakenAllOrNothing() {
        QuorumLockService locks = this.clients.service();
        QuorumLockService other = this.clients.service();
        MultiLockHandle set = locks.acquireAll(List.of("account:b", "account:a"), LockOptions.defaults());
        assertThat(set.key()).isEqualTo("[account:a, account:b]");
        assertThat(holders(masters, "account:a")).isEqualTo(5);
        assertThat(holders(masters, "account:b")).isEqualTo(5);

        assertThat(other.tryAcquireAll(List.of("account:c", "account:b"), LockOptions.defaults())).isEmpty();
        assertThat(holders(masters, "account:c")).isZero(); // taken first, then given back

        set.release();
        assertThat(holders(masters, "account:a")).isZero();
        assertThat(holders(masters, "account:b")).isZero();
    }

    @Test
    void aFixedLeaseEndsOnEveryMaster() {
        QuorumLockService locks = this.clients.service();
        LockHandle lock = locks.acquire("lease", LockOptions.defaults().withLeaseTime(Duration.ofMillis(500)));
        assertThat(lock.leaseDeadline()).isBefore(Instant.now().plusMillis(500));
        Await.until(Duration.ofSeconds(5), () -> !lock.isHeld(), "the fixed lease ends");
        Await.until(Duration.ofSeconds(5), () -> holders(masters, "lease") == 0, "Redis expires it everywhere");
        assertThat(locks.tryAcquire("lease", LockOptions.defaults().withOwner(new Object()))).isPresent();
    }

    @Test
    void aPausedMasterCountsAsDownAndItsLateGrantIsUndone() {
        QuorumLockService locks = this.clients.service(builder -> builder.watchdogLease(Duration.ofSeconds(5)));
        RedisNode paused = masters.get(0);
        paused.pause();
        LockHandle lock;
        try {
            lock = locks.acquire("slow");
            assertThat(lock.isHeld()).isTrue();
        }
        finally {
            paused.resume();
        }
        // The paused master ran the grant after the client gave up on it; the grant was undone, not left to expire.
        Await.until(Duration.ofSeconds(3),
                () -> paused.lockField("distlock:{slow}:lock", "owner") == null, "the late grant is undone");
        assertThat(lock.isHeld()).isTrue();
        lock.release();
        assertThat(holders(masters, "slow")).isZero();
    }

    @Test
    void onlyExclusiveLocksAndOddMasterCountsOfAtLeastThreeAreAccepted() {
        QuorumLockService locks = this.clients.service();
        for (LockMode mode : List.of(LockMode.READ, LockMode.WRITE, LockMode.FAIR)) {
            assertThatThrownBy(() -> locks.acquire("mode", LockOptions.defaults().withMode(mode)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only EXCLUSIVE")
                .hasMessageContaining(mode.name());
        }
        assertThatThrownBy(() -> locks.acquire("mode", LockOptions.defaults().withPermits(3)))
            .isInstanceOf(UnsupportedOperationException.class)
            .hasMessageContaining("offers no semaphores");
        assertThatThrownBy(() -> locks.acquire("bad{key}")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("braces");

        List<StringRedisTemplate> templates = this.clients.templates();
        assertThatThrownBy(() -> QuorumLockService.builder(templates.subList(0, 4)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("odd number of at least 3")
            .hasMessageContaining("were 4");
        assertThatThrownBy(() -> QuorumLockService.builder(templates.subList(0, 1)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("were 1");
        assertThatThrownBy(() -> QuorumLockService.builder(List.of(templates.get(0), templates.get(1),
                templates.get(0)))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("masters[2]");
        assertThatThrownBy(() -> QuorumLockService.builder(templates.subList(0, 3))
            .nodeTimeout(Duration.ofSeconds(1))
            .watchdogLease(Duration.ofSeconds(5))
            .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeTimeout");
    }

    @Test
    void aClosedServiceRefusesNewLocksButReleasesHeldOnes() {
        QuorumLockService locks = this.clients.service();
        LockHandle lock = locks.acquire("closing");
        locks.close();
        assertThatThrownBy(() -> locks.acquire("other")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
        lock.release();
        assertThat(holders(masters, "closing")).isZero();
    }
}
