package dev.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockOptions;
import dev.distlock.LockView;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The registry's locks, and Spring Integration's executeLocked on them, exclude other nodes on a real Redis. */
@RedisTest
class DistributedLockRegistryTest {

    private RedisServices services;

    private DistributedLockRegistry registry;

    private DistributedLockRegistry otherNode;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.services = new RedisServices(redis);
        this.registry = new DistributedLockRegistry(this.services.service(Duration.ofSeconds(30)));
        this.otherNode = new DistributedLockRegistry(this.services.service(Duration.ofSeconds(30)));
    }

    @AfterEach
    void tearDown() throws Exception {
        this.services.close();
    }

    @Test
    void executeLockedRunsTheWorkHoldingTheLockAndReleasesIt() throws Exception {
        AtomicLong token = new AtomicLong();
        String result = this.registry.executeLocked("orders", () -> {
            assertThat(this.otherNode.obtain("orders").tryLock()).isFalse();
            token.set(this.registry.obtain("orders").fencingToken());
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(token.get()).isPositive();
        LockView other = this.otherNode.obtain("orders");
        assertThat(other.tryLock()).isTrue();
        assertThat(other.fencingToken()).isGreaterThan(token.get());
        other.unlock();
    }

    @Test
    void executeLockedWithAWaitLimitTimesOutWhileAnotherNodeHoldsTheLock() throws Exception {
        LockView held = this.otherNode.obtain("reports");
        held.lock();
        assertThatThrownBy(() -> this.registry.executeLocked("reports", Duration.ofMillis(100), () -> {
            throw new AssertionError("ran without the lock");
        })).isInstanceOf(TimeoutException.class);
        held.unlock();
        this.registry.executeLocked("reports", Duration.ofSeconds(5), () -> assertThat(held.tryLock()).isFalse());
    }

    @Test
    void obtainGivesOneLockPerKeyAndRefusesKeysThatAreNoStrings() {
        assertThat(this.registry.obtain("a")).isSameAs(this.registry.obtain("a"));
        assertThat(this.registry.obtain("a").key()).isEqualTo("lock-registry:a");
        assertThatThrownBy(() -> this.registry.obtain(42)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("java.lang.Integer");
        assertThatThrownBy(() -> this.registry.obtain("bad{key}").tryLock())
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aFullCacheDropsOnlyLocksThatNobodyHolds() {
        DistributedLockRegistry small = new DistributedLockRegistry(this.services.service(Duration.ofSeconds(30)),
                "small:", LockOptions.defaults(), 1);
        LockView held = small.obtain("one");
        held.lock();
        LockView two = small.obtain("two");
        small.obtain("three");
        assertThat(small.obtain("one")).isSameAs(held);
        assertThat(small.obtain("two")).isNotSameAs(two);
        held.unlock();
        assertThatThrownBy(() -> new DistributedLockRegistry(this.services.service(Duration.ofSeconds(30)), "",
                LockOptions.defaults().withOwner("me"), 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
