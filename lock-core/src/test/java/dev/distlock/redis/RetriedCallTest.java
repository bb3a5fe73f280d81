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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.dao.QueryTimeoutException;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TcpProxy;

/**
 * A call Redis ran whose reply was lost, and its retry (by distlock, or replayed by the client after a reconnect): the
 * retry must only ever match the acquisition it retries, and every path that frees a lock wakes this service's own
 * waiters.
 */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RetriedCallTest {

    private static final LockOptions READ = LockOptions.defaults().withMode(LockMode.READ);

    private static final LockOptions WRITE = LockOptions.defaults().withMode(LockMode.WRITE);

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.redis.resume();
        this.clients.close();
    }

    /**
     * The write holder reads (its read hold shares the write's owner token), releases the read, and the release's first
     * try times out while Redis stalls; before the retry goes out, the same owner reads again on another thread. The
     * retry must not end that new read hold, or a writer of another service gets in while it still reads.
     */
    @Test
    void aRetriedReadReleaseNeverEndsTheSameOwnersNextReadHold() throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), Duration.ofSeconds(2)),
                b -> b);
        RedisLockService other = this.clients.service();
        Object owner = new Object();
        locks.acquire("warm-up", READ).release(); // Redis knows the scripts: the retry runs no EVAL fallback
        LockHandle write = locks.acquire("page", WRITE.withOwner(owner));
        LockHandle firstRead = locks.acquire("page", READ.withOwner(owner));

        this.redis.pause();
        CompletableFuture<Void> release = CompletableFuture.runAsync(firstRead::release); // its first try times out
        Thread.sleep(1000); // sent, and not yet timed out (2 s)
        CompletableFuture<LockHandle> secondRead = CompletableFuture
            .supplyAsync(() -> locks.acquire("page", READ.withOwner(owner)));
        // the first try times out at 2 s; its retry goes out 50 ms later, behind the second read's grant, which
        // times out at 3 s
        Thread.sleep(1350);
        assertThat(release).as("the retry waits for its reply").isNotDone();
        this.redis.resume();
        release.get(10, TimeUnit.SECONDS); // the first try ended the read; the retry answers "released before"
        LockHandle read = secondRead.get(10, TimeUnit.SECONDS);
        write.release(); // a downgrade: the owner reads on

        assertThat(read.isHeld()).isTrue();
        assertThat(other.tryAcquire("page", WRITE)).as("no writer while the owner reads").isEmpty();
        read.release();
        assertThat(other.tryAcquire("page", WRITE)).isPresent();
    }

    /**
     * A release with a delay shorter than the retry pause whose reply is lost: the lock is free after the delay, as
     * asked, and the retry (replayed after a reconnect) recognises the release instead of reporting a lost lease.
     */
    @ParameterizedTest
    @EnumSource(value = LockMode.class, names = { "EXCLUSIVE", "FAIR", "WRITE" })
    void aDelayedReleaseWhoseReplyWasLostIsNotReportedLost(LockMode mode) throws Exception {
        LockOptions options = LockOptions.defaults().withMode(mode);
        try (TcpProxy proxy = TcpProxy.start(this.redis.port())) {
            RedisLockService holder = this.clients.service(this.clients.template(proxy.port(), Duration.ofSeconds(5)),
                    b -> b);
            RedisLockService other = this.clients.service();
            // Redis knows the scripts (loaded when the service started), the delayed release's too: no
            // NOSCRIPT reply to lose
            holder.acquire("warm-up", options).releaseAfter(Duration.ofMillis(1));
            LockHandle lock = holder.acquire("form", options);

            proxy.blackholeReplies(true); // the release runs in Redis; its reply never comes back
            long sent = System.nanoTime();
            CompletableFuture<Void> release = CompletableFuture
                .runAsync(() -> lock.releaseAfter(Duration.ofMillis(100)));
            Await.until(Duration.ofSeconds(10), () -> {
                var taken = other.tryAcquire("form", options);
                taken.ifPresent(LockHandle::release);
                return taken.isPresent();
            }, "the lock is free after the delay");
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("held for the delay")
                .isGreaterThanOrEqualTo(Duration.ofMillis(100));
            proxy.blackholeReplies(false);
            proxy.dropConnections(); // the client reconnects and sends the release again

            release.get(20, TimeUnit.SECONDS); // no LeaseLostException: this release did happen
            assertThat(lock.isHeld()).isFalse();
        }
    }

    /**
     * An acquisition whose outcome a failure left unknown is undone off the caller's path; when the undo frees the
     * lock, this service's own waiters hear of it at once (its release message carries this service's id, which its
     * subscription drops), not at their re-check 5 s later. The failure is made here by handing GrantFailures a
     * timeout for a grant that Redis did make, as a lost reply would.
     */
    @Test
    void undoingAGrantWakesThisServicesOwnWaiters() throws Exception {
        RedisLockService locks = this.clients.service();
        RedisLockHandle granted = (RedisLockHandle) locks.acquire("cart");
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                () -> locks.acquire("cart", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)).withOwner("w")));
        Await.until(Duration.ofSeconds(5),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{cart}:released").endsWith("\n1"),
                "the waiter subscribed");
        Thread.sleep(300); // its second attempt's refusal came back: it sleeps until the holder's lease (5 s cap)

        LockEngine engine = engineOf(locks);
        long undone = System.nanoTime();
        new GrantFailures(engine.calls.failures(), granted.hold, granted.holdId, true)
            .failed(new QueryTimeoutException("lost reply"));
        LockHandle acquired = waiter.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - undone)).as("woken by the undo, not by its 5 s re-check")
            .isLessThan(Duration.ofMillis(2500));
        acquired.release();
    }

    /** A read lock is never upgraded: two readers upgrading at once would wait for each other until their waits end. */
    @Test
    void aReaderCannotTakeTheWriteLock() {
        RedisLockService locks = this.clients.service();
        LockHandle read = locks.acquire("doc", READ);
        assertThatThrownBy(() -> locks.tryAcquire("doc", WRITE)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("read lock").hasMessageContaining("release");
        assertThatThrownBy(() -> locks.async().tryAcquire("doc", WRITE.withOwner(Thread.currentThread())))
            .isInstanceOf(IllegalStateException.class);
        read.release();
        locks.acquire("doc", WRITE).release();
        assertThat(this.redis.call("KEYS", "distlock:{doc}:rw:intent")).isEmpty();
    }

    private static LockEngine engineOf(RedisLockService service) throws ReflectiveOperationException {
        var field = RedisLockService.class.getDeclaredField("engine");
        field.setAccessible(true);
        return (LockEngine) field.get(service);
    }
}
