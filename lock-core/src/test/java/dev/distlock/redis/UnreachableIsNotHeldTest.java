package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.reactor.ReactiveLocks;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Issue 47 point 3: while a service cannot reach Redis, its callers get {@link LockUnavailableException}, never the
 * "held" of a {@link LockTimeoutException}, whatever its local queue believes (a local holder whose release failed,
 * waiters queued before the outage), and they get it within the lock call timeout, not after their wait.
 */
@RedisTest
class UnreachableIsNotHeldTest {

    /** The client's own command timeout, far longer than the lock call timeout, as an application's often is. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

    /** The lock call timeout: shorter than the 2 s default, so that the test's outages end sooner. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(1);

    /** Generous room above the documented bound for a loaded 2-core machine. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    /** The callers' wait: longer than the call timeout, shorter than a few calls in a row. */
    private static final Duration WAIT = Duration.ofSeconds(5);

    private RedisNode redis;

    private RedisClients clients;

    private ExecutorService threads;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.threads = Executors.newFixedThreadPool(8);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.threads.shutdownNow();
        this.threads.awaitTermination(30, TimeUnit.SECONDS);
        this.clients.close();
    }

    @Test
    void afterAReleaseFailedWhileRedisIsDownEveryCallerHearsUnavailableNotHeld() {
        RedisLockService locks = service();
        LockHandle held = locks.acquire("seat");
        this.redis.kill();
        assertThatThrownBy(held::release).isInstanceOf(LockUnavailableException.class);

        LockOptions waiting = LockOptions.defaults().withWaitTime(WAIT);
        for (int probe = 0; probe < 2; probe++) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> locks.acquire("seat", waiting)).as("blocking probe " + probe)
                .isInstanceOf(LockUnavailableException.class);
            assertWithinCallTimeout(start, "blocking probe " + probe);

            start = System.nanoTime();
            assertThatThrownBy(() -> locks.async().acquire("seat", waiting).join()).as("async probe " + probe)
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(LockUnavailableException.class);
            assertWithinCallTimeout(start, "async probe " + probe);
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> ReactiveLocks.of(locks).acquire("seat", waiting).block())
            .isInstanceOf(LockUnavailableException.class);
        assertWithinCallTimeout(start, "reactive probe");
    }

    @Test
    void waitersQueuedBeforeTheOutageHearUnavailableNotHeldOnceTheReleaseFails() throws Exception {
        RedisLockService locks = service();
        LockHandle held = locks.acquire("seat");
        LockOptions waiting = LockOptions.defaults().withWaitTime(WAIT);
        List<CompletableFuture<Duration>> answers = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(6);
        for (int i = 0; i < 6; i++) {
            answers.add(CompletableFuture.supplyAsync(() -> answerTime(() -> {
                started.countDown();
                locks.acquire("seat", waiting);
            }), this.threads));
            answers.add(answerTimeOf(() -> locks.async().acquire("seat", waiting)));
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        Await.until(Duration.ofSeconds(5), () -> this.redis.call("PUBSUB", "CHANNELS", "*").contains("seat"),
                "the first waiter listens for the release");
        this.redis.kill();
        assertThatThrownBy(held::release).isInstanceOf(LockUnavailableException.class);
        long failedNanos = System.nanoTime();

        for (CompletableFuture<Duration> answer : answers) {
            answer.get(30, TimeUnit.SECONDS); // Redis unavailable, or the test fails
            assertThat(Duration.ofNanos(System.nanoTime() - failedNanos))
                .as("answered within the call timeout of the failed release")
                .isLessThan(CALL_TIMEOUT.plus(SLACK));
        }
        restartAndLockAgain(locks);
    }

    /** The time until the call failed with Redis unavailable; any other outcome fails the test. */
    private static Duration answerTime(Runnable call) {
        long start = System.nanoTime();
        try {
            call.run();
        }
        catch (LockUnavailableException expected) {
            return Duration.ofNanos(System.nanoTime() - start);
        }
        catch (LockTimeoutException held) {
            throw new AssertionError("Redis unreachable was reported as held", held);
        }
        throw new AssertionError("granted while Redis was down");
    }

    private static CompletableFuture<Duration> answerTimeOf(
            java.util.function.Supplier<CompletableFuture<LockHandle>> call) {
        long start = System.nanoTime();
        return call.get().handle((handle, failure) -> {
            Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
            if (cause instanceof LockUnavailableException) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            throw new AssertionError("async: expected Redis unavailable but got " + ((cause != null) ? cause
                    : "the lock"), cause);
        });
    }

    private void restartAndLockAgain(RedisLockService locks) {
        this.redis.restart();
        Await.until(Duration.ofSeconds(20), () -> {
            try {
                return locks.tryAcquire("seat", LockOptions.defaults().withWaitTime(Duration.ofMillis(500)))
                    .map(handle -> {
                        handle.release();
                        return true;
                    })
                    .orElse(false);
            }
            catch (LockUnavailableException ex) {
                return false; // still reconnecting
            }
        }, "the lock is granted again once Redis is back");
    }

    private static void assertWithinCallTimeout(long startNanos, String what) {
        assertThat(Duration.ofNanos(System.nanoTime() - startNanos)).as(what + " answered within the call timeout")
            .isLessThan(CALL_TIMEOUT.plus(SLACK));
    }

    private RedisLockService service() {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), CLIENT_TIMEOUT),
                b -> b.callTimeout(CALL_TIMEOUT));
        locks.tryAcquire("warm-up", LockOptions.defaults()).orElseThrow().release(); // connected before the fault
        return locks;
    }
}
