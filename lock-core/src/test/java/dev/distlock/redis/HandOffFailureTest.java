package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A hand-off whose three tries all time out, the first having run in Redis: the waiter may hold the lock under the
 * owner token it gives up (it waits on with a new one). That grant is undone, as a failed grant is, rather than left to
 * run out its lease while every caller, the waiter included, is refused.
 * <p>
 * Timeline, with a command timeout of 300 ms and replies of the first second held back 600 ms (the proxy forwards
 * them in order, each held back from when it reads it): the tries go out at 0, 350 and 750 ms and time out at 300,
 * 650 and 1050 ms, their replies coming at about 600 and 1200 ms; the undo goes out at about 1050 ms, its reply
 * behind the third try's.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HandOffFailureTest {

    private static final Duration WAITER_LEASE = Duration.ofSeconds(15);

    private RedisClients clients;

    private FaultProxy proxy;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
        this.proxy = FaultProxy.start(redis.port());
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
        this.proxy.close();
    }

    @Test
    void aHandOffWhoseTriesAllFailedIsUndoneNotLeftToRunOut() throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.proxy.port(), Duration.ofMillis(300)),
                b -> b);
        locks.acquire("warm-up").release();
        LockHandle holder = locks.acquire("order:9", LockOptions.defaults().withOwner("holder"));
        CompletableFuture<LockHandle> waiter = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiter.complete(locks.acquire("order:9", LockOptions.defaults().withOwner("waiter")
                    .withLeaseTime(WAITER_LEASE).withWaitTime(Duration.ofSeconds(30))));
            }
            catch (Throwable ex) {
                waiter.completeExceptionally(ex);
            }
        }, "waiter");
        thread.start();
        WaitingThreads.awaitWaitingForARelease(thread, Duration.ofSeconds(10));

        this.proxy.delayReplies(Duration.ofMillis(1000), Duration.ofMillis(600));
        assertThatThrownBy(holder::release).as("every try of the hand-off timed out")
            .isInstanceOf(LockUnavailableException.class);
        long failed = System.nanoTime();

        LockHandle next = waiter.get(WAITER_LEASE.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - failed)).as("the waiter's lost grant was undone, not left "
                + "to run out its " + WAITER_LEASE.toSeconds() + " s lease").isLessThan(Duration.ofSeconds(5));
        assertThat(next.isHeld()).isTrue();
        next.release();
    }
}
