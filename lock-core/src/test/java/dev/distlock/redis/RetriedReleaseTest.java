package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A release whose first try ran in Redis with its reply delayed past the command timeout, retried after a later grant
 * of the lock lapsed with its short lease and took the lock's hash, the retry's only evidence of the first try, with
 * it. The holder's lease had seconds left all along, so its release happened: no lost lease may be reported (found by
 * the fault explorer, seed -2414148542129514153).
 * <p>
 * Timeline, with a command timeout of 300 ms and replies of the first 600 ms held back 350 ms: the first try runs at
 * once and times out at 300 ms; the second goes out at 350 ms and times out at 650 ms; the third goes out at 750 ms,
 * its reply queued behind the second's (700 ms). The later grant's 250 ms lease ends before the second try runs.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetriedReleaseTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(300);

    private static final Duration SHORT_LEASE = Duration.ofMillis(250);

    private RedisNode redis;

    private RedisClients clients;

    private FaultProxy proxy;

    private final List<LockException> reported = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.proxy = FaultProxy.start(redis.port());
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
        this.proxy.close();
    }

    /**
     * The holder hands the lock to a waiter of its own service (handoff.lua) whose fixed lease is short. Nobody renews
     * the waiter's grant before the hand-off's reply arrives, so it lapses in Redis, and the retried hand-off finds
     * nobody holding the lock.
     */
    @Test
    void aRetriedHandOffWhoseNewHoldersLeaseLapsedIsNotReportedLost() throws Exception {
        RedisLockService locks = delayedService();
        handOff(locks, "warm-up", Duration.ofSeconds(10)); // Redis knows the scripts: no NOSCRIPT reply to delay
        LockHandle lock = locks.acquire("order:7", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        CompletableFuture<LockHandle> waiter = queuedWaiter(locks, "order:7", SHORT_LEASE);

        this.proxy.delayReplies(Duration.ofMillis(600), Duration.ofMillis(350));
        long started = System.nanoTime();
        Optional<Throwable> failure = releaseOf(lock);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("retried: its first try timed out")
            .isGreaterThan(COMMAND_TIMEOUT);
        assertThat(failure).as("the first try handed the lock off with 29 s of lease left").isEmpty();
        assertThat(this.reported).isEmpty();
        assertThat(lock.isHeld()).isFalse();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS); // the hand-off was given back: it gets the lock anew
        assertThat(next.isHeld()).isTrue();
        next.release();
    }

    /**
     * The first try frees the lock; another service's owner takes it with a short lease and never releases it. A
     * {@code releaseAsync()} retries on the service's timer and must read the reply the same way.
     */
    @ParameterizedTest(name = "async: {0}")
    @ValueSource(booleans = { false, true })
    void aRetriedReleaseAfterALaterGrantLapsedIsNotReportedLost(boolean async) throws Exception {
        RedisLockService locks = delayedService();
        RedisLockService other = this.clients.service();
        locks.acquire("warm-up").release();
        LockHandle lock = locks.acquire("order:8", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));

        this.proxy.delayReplies(Duration.ofMillis(600), Duration.ofMillis(350));
        CompletableFuture<Void> release = async ? lock.releaseAsync().toCompletableFuture()
                : CompletableFuture.runAsync(lock::release);
        Await.until(Duration.ofSeconds(2),
                () -> other.tryAcquire("order:8", LockOptions.defaults().withLeaseTime(SHORT_LEASE)).isPresent(),
                "another owner took the lock the first try freed");
        Optional<Throwable> failure = outcome(release);

        assertThat(failure).as("the first try freed the lock with 29 s of lease left").isEmpty();
        assertThat(this.reported).isEmpty();
        assertThat(lock.isHeld()).isFalse();
    }

    /** A service behind the proxy with a short command timeout, recording every failed release and lost lease. */
    private RedisLockService delayedService() {
        LockEventListener recording = event -> {
            if (event instanceof LockEvent.ReleaseFailed failed) {
                RetriedReleaseTest.this.reported.add(failed.reason());
            }
            if (event instanceof LockEvent.LeaseLost leaseLost) {
                RetriedReleaseTest.this.reported.add(leaseLost.reason());
            }
        };
        return this.clients.service(this.clients.template(this.proxy.port(), COMMAND_TIMEOUT),
                b -> b.listener(recording));
    }

    private static void handOff(RedisLockService locks, String key, Duration waiterLease) throws Exception {
        LockHandle holder = locks.acquire(key);
        CompletableFuture<LockHandle> waiter = queuedWaiter(locks, key, waiterLease);
        holder.release();
        waiter.get(10, TimeUnit.SECONDS).release();
    }

    /** A waiter of the same service on its own thread, returned once it waits in the service's queue. */
    private static CompletableFuture<LockHandle> queuedWaiter(RedisLockService locks, String key, Duration lease) {
        CompletableFuture<LockHandle> acquired = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                acquired.complete(locks.acquire(key,
                        LockOptions.defaults().withLeaseTime(lease).withWaitTime(Duration.ofSeconds(20))));
            }
            catch (Throwable ex) {
                acquired.completeExceptionally(ex);
            }
        }, "waiter-" + key);
        thread.start();
        Await.until(Duration.ofSeconds(5), () -> {
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        }, "the waiter waits");
        return acquired;
    }

    private static Optional<Throwable> releaseOf(LockHandle lock) {
        try {
            lock.release();
            return Optional.empty();
        }
        catch (RuntimeException ex) {
            return Optional.of(ex);
        }
    }

    private static Optional<Throwable> outcome(CompletableFuture<Void> release) throws Exception {
        try {
            release.get(10, TimeUnit.SECONDS);
            return Optional.empty();
        }
        catch (java.util.concurrent.ExecutionException ex) {
            return Optional.of(ex.getCause());
        }
    }
}
