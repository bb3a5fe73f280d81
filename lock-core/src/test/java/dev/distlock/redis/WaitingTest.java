package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Waiting: woken by the release, bounded by the wait limit, interruptible, and distinct from Redis failures. */
@RedisTest
class WaitingTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

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
    void aWaiterInAnotherClientGetsTheLockSoonAfterTheReleaseNotAtExpiry() throws Exception {
        RedisLockService holder = this.clients.service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService waiter = this.clients.service();
        assertWokenByRelease(holder, waiter, "remote");
    }

    @Test
    void aWaiterInTheSameClientGetsTheLockSoonAfterTheReleaseNotAtExpiry() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(LONG_LEASE));
        assertWokenByRelease(locks, locks, "local");
    }

    private void assertWokenByRelease(RedisLockService holder, RedisLockService waiter, String key)
            throws Exception {
        LockHandle held = holder.acquire(key);
        AtomicBoolean releasedYet = new AtomicBoolean();
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try (LockHandle lock = waiter.acquire(key, LockOptions.defaults().withWaitTime(Duration.ofSeconds(25)))) {
                assertThat(releasedYet).isTrue();
                return System.nanoTime();
            }
        });
        // the waiter is parked on the release channel before the holder lets go
        Await.until(Duration.ofSeconds(10),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{" + key + "}:released").endsWith("\n1"),
                "the waiter subscribed to the release channel");
        releasedYet.set(true);
        long releasedAt = System.nanoTime();
        held.release();
        long acquiredAt = waited.get(20, TimeUnit.SECONDS);
        // The holder's lease had 30 s to run: a waiter woken by expiry would take that long.
        assertThat(Duration.ofNanos(acquiredAt - releasedAt)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void manyWaitersAcrossClientsAllGetTheLockInTurnWithoutPolling() throws Exception {
        RedisLockService first = this.clients.service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService second = this.clients.service(b -> b.watchdogLease(LONG_LEASE));
        LockHandle held = first.acquire("queue");
        int waiters = 10;
        CountDownLatch done = new CountDownLatch(waiters);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < waiters; i++) {
            RedisLockService locks = (i % 2 == 0) ? first : second;
            start(() -> {
                try (LockHandle lock = locks.acquire("queue",
                        LockOptions.defaults().withWaitTime(Duration.ofSeconds(25)))) {
                    Thread.sleep(5);
                }
                catch (Throwable ex) {
                    failure.set(ex);
                }
                finally {
                    done.countDown();
                }
            });
        }
        Thread.sleep(200); // let them queue up; correctness does not depend on it
        held.release();
        // 10 hand-offs, each woken by a release, long before one 30 s lease could expire
        assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
        assertThat(failure.get()).isNull();
    }

    @Test
    void theWaitLimitEndsWithATimeoutThatLeavesTheHoldersLockAlone() {
        RedisLockService holder = this.clients.service();
        RedisLockService waiter = this.clients.service();
        LockHandle held = holder.acquire("busy");
        assertThatThrownBy(() -> waiter.acquire("busy", LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
            .isInstanceOf(LockTimeoutException.class)
            .hasMessageContaining("'busy'")
            .satisfies(ex -> assertThat(((LockTimeoutException) ex).waited())
                .isGreaterThanOrEqualTo(Duration.ofMillis(300)));
        assertThat(waiter.tryAcquire("busy")).isEmpty();
        assertThat(held.isHeld()).isTrue();
        assertThat(this.redis.lockField("distlock:{busy}:lock", "owner")).isEqualTo(held.ownerToken());
        held.release();
    }

    @Test
    void zeroWaitMeansOneAttempt() {
        RedisLockService holder = this.clients.service();
        RedisLockService waiter = this.clients.service();
        holder.acquire("once");
        assertThatThrownBy(() -> waiter.acquire("once", LockOptions.defaults().withWaitTime(Duration.ZERO)))
            .isInstanceOf(LockTimeoutException.class);
    }

    @Test
    void anInterruptedWaiterStopsWaitingAndKeepsItsInterruptFlag() throws Exception {
        RedisLockService holder = this.clients.service();
        RedisLockService waiter = this.clients.service();
        holder.acquire("interrupt-me");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        Thread thread = start(() -> {
            try {
                waiter.acquire("interrupt-me", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
            }
            catch (Throwable ex) {
                thrown.set(ex);
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        Await.until(Duration.ofSeconds(10),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{interrupt-me}:released").endsWith("\n1"),
                "the waiter is waiting");
        thread.interrupt();
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter).isTrue();
    }

    @Test
    void anInterruptDuringARedisCallIsReportedAsAnInterruptAndLeavesNoLockBehind() throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), Duration.ofSeconds(20)),
                b -> b);
        locks.acquire("warm-up").release(); // connect first, so that the call below waits for a reply, not a socket
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        this.redis.pause();
        Thread thread;
        try {
            thread = start(() -> {
                try {
                    locks.acquire("in-flight", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
                }
                catch (Throwable ex) {
                    thrown.set(ex);
                    flagAfter.set(Thread.currentThread().isInterrupted());
                }
            });
            Await.until(Duration.ofSeconds(10), () -> thread.getState() == Thread.State.TIMED_WAITING,
                    "the acquire script was sent and its reply is awaited");
            thread.interrupt();
        }
        finally {
            this.redis.resume(); // the queued script runs now and may grant the lock; the undo must free it
        }
        thread.join(20_000);
        assertThat(thread.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter).isTrue();
        // the undo runs off the caller's path (GrantFailures.undoLater), so it may still be on its way
        Await.until(Duration.ofSeconds(10), () -> this.redis.lockField("distlock:{in-flight}:lock", "owner") == null,
                "the grant the interrupted call left behind is undone");
    }

    @Test
    void virtualThreadsWaitAndAcquire() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21+");
        RedisLockService locks = this.clients.service();
        LockHandle held = locks.acquire("virtual");
        CompletableFuture<Long> token = new CompletableFuture<>();
        startVirtual(() -> {
            try (LockHandle lock = locks.acquire("virtual")) {
                token.complete(lock.fencingToken());
            }
            catch (Throwable ex) {
                token.completeExceptionally(ex);
            }
        });
        Await.until(Duration.ofSeconds(10),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{virtual}:released").endsWith("\n1"),
                "the virtual thread is waiting");
        held.release();
        assertThat(token.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    }

    @Test
    void anUnreachableRedisIsReportedAsUnavailableNotAsHeld() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            closedPort = socket.getLocalPort();
        }
        RedisLockService locks = this.clients.service(this.clients.template(closedPort, Duration.ofSeconds(1)),
                b -> b);
        assertThatThrownBy(() -> locks.acquire("anything")).isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("'anything'");
        assertThatThrownBy(() -> locks.tryAcquire("anything")).isInstanceOf(LockUnavailableException.class);
    }

    @Test
    void aPausedRedisTimesOutAsUnavailableWithinTheCommandTimeout() throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), Duration.ofMillis(500)),
                b -> b);
        this.redis.pause();
        try {
            CompletableFuture<LockHandle> attempt = CompletableFuture.supplyAsync(() -> locks.acquire("paused"));
            assertThatThrownBy(() -> attempt.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockUnavailableException.class);
        }
        finally {
            this.redis.resume();
        }
        // the timed-out attempt was undone (or never applied): the lock is free
        Await.until(Duration.ofSeconds(5), () -> this.redis.lockField("distlock:{paused}:lock", "owner") == null,
                "no lock is left behind");
    }

    private static Thread start(Runnable task) {
        Thread thread = new Thread(task);
        thread.start();
        return thread;
    }

    private static void startVirtual(Runnable task) throws ReflectiveOperationException {
        // compiled for Java 17: reach Thread.startVirtualThread reflectively on newer runtimes
        Thread.class.getMethod("startVirtualThread", Runnable.class).invoke(null, task);
    }
}
