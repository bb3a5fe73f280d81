package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Reentrancy counts holds per owner; fencing tokens strictly increase across holders. */
@RedisTest
class ReentrancyAndFencingTest {

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
    void theSameThreadReentersAndTheLockIsFreedOnlyByTheLastRelease() throws Exception {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle outer = locks.acquire("order:7");
        LockHandle inner = locks.acquire("order:7", LockOptions.defaults().withWaitTime(Duration.ZERO));
        LockHandle innermost = locks.tryAcquire("order:7").orElseThrow();

        assertThat(inner.ownerToken()).isEqualTo(outer.ownerToken());
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(this.redis.lockField("distlock:{order:7}:lock", "holds")).isEqualTo("3");

        innermost.release();
        inner.release();
        inner.release(); // a second release of the same handle does nothing
        assertThat(this.redis.lockField("distlock:{order:7}:lock", "holds")).isEqualTo("1");
        assertThat(other.tryAcquire("order:7")).isEmpty();
        assertThat(outer.isHeld()).isTrue();

        outer.release();
        assertThat(outer.isHeld()).isFalse();
        Optional<LockHandle> next = other.tryAcquire("order:7");
        assertThat(next).isPresent();
        next.get().release();
    }

    @Test
    void anotherThreadOfTheSameServiceDoesNotReenter() throws Exception {
        RedisLockService locks = this.clients.service();
        try (LockHandle held = locks.acquire("shared")) {
            Optional<LockHandle> fromOtherThread = CompletableFuture.supplyAsync(() -> locks.tryAcquire("shared"))
                .get(10, TimeUnit.SECONDS);
            assertThat(fromOtherThread).isEmpty();
        }
    }

    @Test
    void aNamedOwnerReentersFromAnyThreadAndTheHandleIsReleasedFromAnother() throws Exception {
        RedisLockService locks = this.clients.service();
        Object request = new Object();
        LockOptions asRequest = LockOptions.defaults().withOwner(request);
        LockHandle outer = locks.acquire("export", asRequest);
        LockHandle inner = CompletableFuture.supplyAsync(() -> locks.tryAcquire("export", asRequest))
            .get(10, TimeUnit.SECONDS)
            .orElseThrow();
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        // a fresh owner object never re-enters
        assertThat(locks.tryAcquire("export", LockOptions.defaults().withOwner(new Object()))).isEmpty();

        CompletableFuture.runAsync(inner::release).get(10, TimeUnit.SECONDS);
        CompletableFuture.runAsync(outer::release).get(10, TimeUnit.SECONDS);
        assertThat(this.redis.lockField("distlock:{export}:lock", "owner")).isNull();
    }

    @Test
    void fencingTokensStrictlyIncreaseAcrossHoldersAndClients() {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            RedisLockService locks = (i % 2 == 0) ? first : second;
            try (LockHandle lock = locks.acquire("fenced")) {
                tokens.add(lock.fencingToken());
            }
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        assertThat(tokens.get(0)).isPositive();
    }

    @Test
    void fencingTokensKeepIncreasingAfterRedisLosesTheLockState() {
        RedisLockService locks = this.clients.service();
        long before;
        try (LockHandle lock = locks.acquire("fenced")) {
            before = lock.fencingToken();
        }
        this.redis.call("FLUSHALL"); // as after a restart without persistence
        try (LockHandle lock = locks.acquire("fenced")) {
            assertThat(lock.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    void fencingTokensIncreaseWhenAFixedLeaseExpiresAndTheLockIsTakenAgain() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle first = locks.acquire("expiring", LockOptions.defaults().withLeaseTime(Duration.ofMillis(100)));
        LockHandle second = other.acquire("expiring", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        second.release();
    }

    /**
     * An explicit owner re-enters on one thread while another releases the owner's last handle: when the release wins
     * in Redis the re-entry finds the lock freed by its owner, which is no lost lease; the re-entry takes it anew.
     */
    @Test
    void aReentryRacingTheReleaseOfTheOwnersLastHandleReportsNoLoss() throws Exception {
        AtomicInteger losses = new AtomicInteger();
        RedisLockService locks = this.clients.service(b -> b.listener(event -> {
            if (event instanceof LockEvent.LeaseLost) {
                losses.incrementAndGet();
            }
        }));
        ExecutorService releaser = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < 200; i++) {
                LockOptions owned = LockOptions.defaults().withOwner("owner-" + i);
                LockHandle first = locks.acquire("shared:" + i, owned);
                Future<?> released = releaser.submit(first::release);
                LockHandle second = locks.acquire("shared:" + i, owned);
                released.get(10, TimeUnit.SECONDS);
                assertThat(second.isHeld()).isTrue();
                second.release();
            }
        }
        finally {
            releaser.shutdownNow();
        }
        assertThat(losses).as("no lease was lost").hasValue(0);
    }
}
