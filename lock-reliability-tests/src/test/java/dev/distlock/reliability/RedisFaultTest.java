package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Faults of the Redis server: paused (SIGSTOP) during acquire, renew and release, and restarted without persistence.
 * Callers get the documented errors within their limits, no thread hangs, and nothing is left half-done.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisFaultTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    private RedisNode redis;

    private Clients clients;

    private final List<LeaseLostException> lost = new CopyOnWriteArrayList<>();

    private RedisLockService locks;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new Clients();
        this.locks = this.clients.service(redis.port(), COMMAND_TIMEOUT,
                b -> b.watchdogLease(Duration.ofMillis(1200)).listener(event -> {
                    if (event instanceof LockEvent.LeaseLost leaseLost) {
                        RedisFaultTest.this.lost.add(leaseLost.reason());
                    }
                }));
    }

    @AfterEach
    void tearDown() {
        this.redis.resume();
        this.clients.close();
    }

    @Test
    void anAcquireDuringAPauseFailsAsUnavailableWithinTheCommandTimeoutAndLeavesNoLock() throws Exception {
        this.redis.pause();
        long start = System.nanoTime();
        CompletableFuture<LockHandle> attempt = CompletableFuture.supplyAsync(() -> this.locks.acquire("paused"));
        assertThatThrownBy(() -> attempt.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockUnavailableException.class);
        // one timed-out acquire plus its undo, each bounded by the command timeout
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(COMMAND_TIMEOUT.multipliedBy(2).plusSeconds(2));
        this.redis.resume();
        // the acquire reached Redis after the pause; its undo followed it, so no lock outlives the failure
        long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (this.redis.lockField("distlock:{paused}:lock", "owner") != null && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(this.redis.lockField("distlock:{paused}:lock", "owner")).isNull();
        assertThat(this.locks.tryAcquire("paused")).isPresent();
    }

    @Test
    void aPauseLongerThanTheLeaseDuringRenewalIsReportedAsALostLease() throws Exception {
        LockHandle lock = this.locks.acquire("renewing");
        CountDownLatch told = new CountDownLatch(1);
        lock.onLeaseLost(reason -> told.countDown());
        this.redis.pause();
        assertThat(told.await(15, TimeUnit.SECONDS)).as("the holder is told").isTrue();
        assertThat(lock.isHeld()).isFalse();
        assertThat(this.lost).singleElement().satisfies(reason -> assertThat(reason.key()).isEqualTo("renewing"));
        this.redis.resume();
        // Redis's clock ran during the pause: the lease expired there as well, and the lock is free
        try (LockHandle next = this.locks.acquire("renewing",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
    }

    @Test
    void aReleaseDuringAPauseFailsAsUnavailableAndTheLockExpiresAtTheEndOfItsLease() throws Exception {
        LockHandle lock = this.locks.acquire("releasing");
        this.redis.pause();
        long start = System.nanoTime();
        assertThatThrownBy(lock::release).isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("the lock stays until its lease runs out");
        // three attempts bounded by the command timeout, with short pauses between them
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(this.locks.renewingCount()).as("no longer renewed").isZero();
        this.redis.resume();
        try (LockHandle next = this.locks.acquire("releasing",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(next.isHeld()).isTrue();
        }
    }

    @Test
    void aRestartWithoutPersistenceTellsHoldersTheyLostTheLeaseAndNewLocksWork() throws Exception {
        LockHandle first = this.locks.acquire("restart:1");
        LockHandle second = this.locks.acquire("restart:2");
        CountDownLatch told = new CountDownLatch(2);
        first.onLeaseLost(reason -> told.countDown());
        second.onLeaseLost(reason -> told.countDown());

        this.redis.restart();

        assertThat(told.await(15, TimeUnit.SECONDS)).isTrue();
        assertThat(first.isHeld()).isFalse();
        assertThat(second.isHeld()).isFalse();
        assertThatThrownBy(first::release).isInstanceOf(LeaseLostException.class);
        try (LockHandle again = this.locks.acquire("restart:1",
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(again.fencingToken()).as("tokens keep increasing across the restart")
                .isGreaterThan(first.fencingToken());
        }
    }
}
