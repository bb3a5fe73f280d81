package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.NotLockOwnerException;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A lease that ends without running out (the key deleted, as a failover to a replica that never had it, a restart
 * without data, eviction or FLUSHALL would) while its holder releases with replies delayed past the command timeout:
 * the first try runs in Redis and finds the lease gone, its reply is lost, and the retry finds the same. The holder
 * must hear of the loss: a retry counts as released only on evidence that an earlier try of this release ran.
 * <p>
 * Timeline, with a command timeout of 1 s and replies of the first 300 ms held back 1.2 s: the first try runs at once
 * and times out at 1 s; the retry goes out at 1.05 s and gets its reply behind the first one's, at 1.2 s. A call that a
 * timed-out try sends asking Redis (a queued waiter, woken since Redis did not answer) has its reply from 1.2 s on,
 * well within its own timeout: a loaded machine does not turn it into "unreachable".
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetriedReleaseAfterLossTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private static final LockOptions FIXED_LEASE = LockOptions.defaults().withLeaseTime(Duration.ofSeconds(60));

    private RedisNode redis;

    private RedisClients clients;

    private FaultProxy proxy;

    private final List<LockEvent> reported = new CopyOnWriteArrayList<>();

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

    /** The lock deleted and taken by another service (or by nobody), with a fixed lease or the watchdog's. */
    @ParameterizedTest(name = "watchdog {0}, async {1}, taken by another {2}")
    @CsvSource({ "false, false, true", "false, true, true", "true, false, true", "true, true, true",
            "false, false, false", "true, true, false" })
    void aLockDeletedAndRetakenIsReportedLostAtARetriedRelease(boolean watchdog, boolean async, boolean taken)
            throws Exception {
        RedisLockService locks = delayedService();
        RedisLockService other = this.clients.service();
        locks.acquire("warm-up").release(); // Redis knows the scripts: no NOSCRIPT reply to delay
        LockHandle lock = locks.acquire("order:1", watchdog ? LockOptions.defaults() : FIXED_LEASE);
        this.redis.call("DEL", "distlock:{order:1}:lock");
        LockHandle thief = taken ? other.tryAcquire("order:1").orElseThrow() : null;

        Throwable failure = releaseWithDelayedReplies(lock, async);

        if (taken) {
            assertThat(failure).as("released while another owner held the lock")
                .isInstanceOf(NotLockOwnerException.class);
            assertThat(thief.isHeld()).isTrue();
        }
        else {
            assertThat(failure).as("released after the lease was deleted").isInstanceOf(LeaseLostException.class);
        }
        assertThat(this.reported).anyMatch(LockEvent.ReleaseFailed.class::isInstance);
    }

    /** A semaphore permit whose keys were deleted, then taken by another service. */
    @ParameterizedTest(name = "async {0}")
    @CsvSource({ "false", "true" })
    void aDeletedPermitIsReportedLostAtARetriedRelease(boolean async) throws Exception {
        RedisLockService locks = delayedService();
        RedisLockService other = this.clients.service();
        LockOptions permit = FIXED_LEASE.withPermits(1);
        locks.acquire("warm-up", permit).release();
        LockHandle lock = locks.acquire("pool:1", permit);
        for (String key : this.redis.call("KEYS", "distlock:{pool:1}:*").split("\n")) {
            this.redis.call("DEL", key);
        }
        LockHandle thief = other.tryAcquire("pool:1", permit).orElseThrow();

        Throwable failure = releaseWithDelayedReplies(lock, async);

        assertThat(failure).as("released a permit another service holds now").isInstanceOf(LeaseLostException.class);
        assertThat(thief.isHeld()).isTrue();
        assertThat(this.reported).anyMatch(LockEvent.ReleaseFailed.class::isInstance);
    }

    /** The holder's release would hand the lock to a waiter of its own service: the hand-off's retries. */
    @Test
    void aDeletedAndRetakenLockIsReportedLostAtARetriedHandOff() throws Exception {
        RedisLockService locks = delayedService();
        RedisLockService other = this.clients.service();
        locks.acquire("warm-up").release();
        LockHandle lock = locks.acquire("order:2", FIXED_LEASE);
        CompletableFuture<LockHandle> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.complete(locks.acquire("order:2", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
            }
            catch (Throwable ex) {
                waiter.completeExceptionally(ex);
            }
        }, "waiter");
        thread.start();
        // queued behind its service's holder: it sends Redis nothing until the hand-off
        WaitingThreads.awaitWaitingForARelease(thread, Duration.ofSeconds(10));
        this.redis.call("DEL", "distlock:{order:2}:lock");
        LockHandle thief = other.tryAcquire("order:2", FIXED_LEASE)
            .orElseThrow(() -> new AssertionError("the deleted lock was taken before the thief: "
                    + this.redis.call("HGETALL", "distlock:{order:2}:lock") + ", the waiter: " + waiter));

        Throwable failure = releaseWithDelayedReplies(lock, false);

        assertThat(failure).as("handed off while another owner held the lock")
            .isInstanceOf(NotLockOwnerException.class);
        assertThat(thief.isHeld()).isTrue();
        assertThat(waiter).isNotDone();
        thief.release();
        waiter.get(10, TimeUnit.SECONDS).release();
    }

    /** Releases with the replies of the next 300 ms held back 1.2 s; the failure, or null. */
    private Throwable releaseWithDelayedReplies(LockHandle lock, boolean async) throws Exception {
        this.proxy.delayReplies(Duration.ofMillis(300), Duration.ofMillis(1200));
        long started = System.nanoTime();
        Throwable failure = null;
        try {
            if (async) {
                lock.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            else {
                lock.release();
            }
        }
        catch (ExecutionException ex) {
            failure = ex.getCause();
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("retried: the first try timed out")
            .isGreaterThan(COMMAND_TIMEOUT);
        assertThat(lock.isHeld()).isFalse();
        return failure;
    }

    /** A service behind the proxy with a short command timeout, recording every event. */
    private RedisLockService delayedService() {
        return this.clients.service(this.clients.template(this.proxy.port(), COMMAND_TIMEOUT),
                b -> b.listener((LockEvent event) -> this.reported.add(event)));
    }
}
