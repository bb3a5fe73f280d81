package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Two callers of one owner wait for a lock another owner holds. When the first is granted (by Redis, or by a local
 * hand-off), the second re-enters the owner's hold at once, with the same fencing token, as a caller arriving after
 * the grant would; it does not wait out its wait while its own owner holds the lock.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QueuedReentryTest {

    /** The callers' wait: long enough that waiting it out shows, short enough for a test. */
    private static final Duration WAIT = Duration.ofSeconds(5);

    /** How soon after the grant the second caller must hold the lock: well inside its wait. */
    private static final Duration PROMPTLY = Duration.ofSeconds(2);

    private final Object owner = new Object();

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void aQueuedCallerOfTheOwnerGrantedByRedisReentersAtTheGrant() throws Exception {
        RedisLockService locks = this.clients.service();
        LockHandle other = this.clients.service().acquire("order:1");
        CompletableFuture<LockHandle> first = blockingCaller(locks, "order:1");
        CompletableFuture<LockHandle> second = blockingCaller(locks, "order:1");

        other.release();

        assertBothHoldOneGrant(first, second);
    }

    @Test
    void aQueuedCallerOfTheOwnerHandedTheLockReentersAtTheHandOff() throws Exception {
        RedisLockService locks = this.clients.service();
        LockHandle other = locks.acquire("order:2", LockOptions.defaults().withOwner("someone else"));
        CompletableFuture<LockHandle> first = blockingCaller(locks, "order:2");
        CompletableFuture<LockHandle> second = blockingCaller(locks, "order:2");

        other.release(); // a local holder hands the lock to the first waiter

        assertBothHoldOneGrant(first, second);
    }

    @Test
    void twoAsyncCallsOfTheOwnerBothHoldTheLockOnceGranted() throws Exception {
        RedisLockService locks = this.clients.service();
        LockHandle other = this.clients.service().acquire("order:3");
        LockOptions options = LockOptions.defaults().withOwner(this.owner).withWaitTime(WAIT);
        CompletableFuture<LockHandle> first = locks.async().acquire("order:3", options);
        CompletableFuture<LockHandle> second = locks.async().acquire("order:3", options);

        other.release();

        assertBothHoldOneGrant(first, second);
    }

    private void assertBothHoldOneGrant(CompletableFuture<LockHandle> first, CompletableFuture<LockHandle> second)
            throws Exception {
        long released = System.nanoTime();
        LockHandle a = first.get(WAIT.toMillis() + 2000, TimeUnit.MILLISECONDS);
        LockHandle b = second.get(WAIT.toMillis() + 2000, TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - released)).as("both hold it well inside their wait")
            .isLessThan(PROMPTLY);
        assertThat(b.fencingToken()).as("one grant, re-entered").isEqualTo(a.fencingToken());
        assertThat(a.isHeld()).isTrue();
        assertThat(b.isHeld()).isTrue();
        a.release();
        assertThat(b.isHeld()).as("the owner's other acquisition keeps the lock").isTrue();
        b.release();
    }

    /** A caller of the owner on its own thread, returned once it waits. */
    private CompletableFuture<LockHandle> blockingCaller(RedisLockService locks, String key) {
        CompletableFuture<LockHandle> acquired = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                acquired.complete(locks.acquire(key, LockOptions.defaults().withOwner(this.owner).withWaitTime(WAIT)));
            }
            catch (Throwable ex) {
                acquired.completeExceptionally(ex);
            }
        }, "caller-" + key);
        thread.start();
        Await.until(Duration.ofSeconds(5), () -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING, "the caller waits");
        return acquired;
    }
}
