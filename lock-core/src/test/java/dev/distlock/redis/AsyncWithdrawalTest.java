package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A non-blocking acquisition whose future its caller completed (cancel, complete, completeExceptionally, orTimeout)
 * is withdrawn, and a grant that lands afterwards is released; a service closed with acquisitions pending completes
 * every one of them, and releases still go through.
 */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AsyncWithdrawalTest {

    private static final LockOptions WAITING = LockOptions.defaults().withWaitTime(Duration.ofMinutes(1));

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

    @ParameterizedTest
    @ValueSource(strings = { "orTimeout", "complete", "completeExceptionally", "cancel" })
    void anAcquisitionItsCallerCompletedIsWithdrawnAndALaterGrantReleased(String how) throws Exception {
        RedisLockService holderService = this.clients.service();
        RedisLockService service = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle holder = holderService.acquire("sku");
        CompletableFuture<LockHandle> waiting = service.async().acquire("sku", WAITING);
        completeFromOutside(waiting, how);
        holder.release();

        assertFreeFor(other, "sku");
        assertThat(service.heldLocks()).isEmpty();
        assertThat(service.renewingCount()).isZero();
    }

    /**
     * The caller gives up while the call's first attempt waits for Redis: that attempt still takes a place in Redis
     * (a fair waiter's place, a writer's intent, which would hold others back for the waiter lease), and the call
     * gives it up once the reply came.
     */
    @ParameterizedTest
    @EnumSource(value = LockMode.class, names = { "FAIR", "WRITE" })
    void aWaiterWithdrawnWhileItsAttemptIsInFlightLeavesNoPlace(LockMode mode) throws Exception {
        LockOptions options = LockOptions.defaults().withMode(mode);
        LockHandle holder = this.clients.service().acquire("placed", options);
        RedisLockService service = this.clients.service(builder -> builder.waiterLease(Duration.ofMinutes(1)));
        service.acquire("warm-up", options).release(); // connected, scripts loaded: the attempt is one EVALSHA
        this.redis.pause();
        CompletableFuture<LockHandle> waiting = service.async().acquire("placed", WAITING.withMode(mode));
        assertThat(waiting.cancel(false)).as("withdrawn while its attempt waits for the paused Redis").isTrue();
        this.redis.resume();
        holder.release();

        LockOptions next = (mode == LockMode.WRITE) ? options.withMode(LockMode.READ) : options;
        RedisLockService other = this.clients.service();
        Await.until(Duration.ofSeconds(10), () -> {
            Optional<LockHandle> taken = other.tryAcquire("placed", next);
            taken.ifPresent(LockHandle::release);
            return taken.isPresent();
        }, "another service takes the " + mode + " lock well before the withdrawn waiter's place would lapse");
        assertThat(service.heldLocks()).isEmpty();
    }

    @Test
    void aTryAcquireAndAKeySetTheirCallersCompletedAreWithdrawn() throws Exception {
        RedisLockService service = this.clients.service();
        RedisLockService other = this.clients.service();
        AsyncLockService async = service.async();
        for (int i = 0; i < 20; i++) { // the attempt is in flight when its caller gives up, or (rarely) has its lock
            CompletableFuture<Optional<LockHandle>> one = async.tryAcquire("one", LockOptions.defaults());
            if (!one.complete(Optional.empty())) { // granted before the caller gave up: the caller has it, releases it
                one.join().ifPresent(LockHandle::release);
            }
            CompletableFuture<MultiLockHandle> keys = async.acquireAll(List.of("a", "b", "c"), LockOptions.defaults());
            keys.orTimeout(1, TimeUnit.NANOSECONDS);
            Await.until(Duration.ofSeconds(5), keys::isDone, "the key set's call completes");
            if (!keys.isCompletedExceptionally()) {
                keys.join().release();
            }
        }
        assertFreeFor(other, "one");
        assertFreeFor(other, "a");
        assertFreeFor(other, "c");
        Await.until(Duration.ofSeconds(10), () -> service.heldLocks().isEmpty(), "nothing stays held");
    }

    @Test
    void executeLockedCompletedByItsCallerNeverRunsTheWork() throws Exception {
        RedisLockService holderService = this.clients.service();
        RedisLockService service = this.clients.service();
        LockHandle holder = holderService.acquire("report");
        AtomicBoolean ran = new AtomicBoolean();
        CompletableFuture<String> locked = service.async().executeLocked("report", WAITING, lock -> {
            ran.set(true);
            return CompletableFuture.completedFuture("done");
        });
        locked.complete("not now");
        holder.release();
        assertFreeFor(this.clients.service(), "report");
        assertThat(ran).isFalse();
    }

    /** The refusal of an attempt in flight at close() arrives after it; the future still completes. */
    @Test
    void anAttemptInFlightWhenTheServiceClosesCompletes() throws Exception {
        RedisLockService holderService = this.clients.service();
        RedisLockService service = this.clients.service();
        LockHandle holder = holderService.acquire("busy");
        service.acquire("warm-up").release();
        List<CompletableFuture<LockHandle>> pending = new ArrayList<>();
        this.redis.pause();
        for (int i = 0; i < 10; i++) {
            pending.add(service.async().acquire("busy", WAITING));
        }
        service.close();
        this.redis.resume();
        for (CompletableFuture<LockHandle> future : pending) {
            Await.until(Duration.ofSeconds(5), future::isDone, "every pending acquisition completes after close()");
            assertThat(future).isCompletedExceptionally();
        }
        holder.release();
    }

    @Test
    void aHandleIsReleasedAsynchronouslyAfterItsServiceClosed() throws Exception {
        RedisLockService service = this.clients.service();
        LockHandle lock = service.async().acquire("kept", LockOptions.defaults()).get(10, TimeUnit.SECONDS);
        service.close();
        lock.releaseAsync().get(10, TimeUnit.SECONDS);
        assertThat(this.clients.service().tryAcquire("kept")).isPresent();
    }

    static void completeFromOutside(CompletableFuture<LockHandle> future, String how) throws Exception {
        switch (how) {
            case "orTimeout" -> {
                future.orTimeout(200, TimeUnit.MILLISECONDS);
                Await.until(Duration.ofSeconds(5), future::isDone, "the caller's timeout fires");
            }
            case "complete" -> future.complete(null);
            case "completeExceptionally" -> future.completeExceptionally(new TimeoutException("gave up"));
            case "cancel" -> future.cancel(false);
            default -> throw new IllegalArgumentException(how);
        }
    }

    /** The key becomes free for another service within a few seconds and stays so: nobody keeps renewing it. */
    static void assertFreeFor(LockService other, String key) {
        Await.until(Duration.ofSeconds(10), () -> {
            var taken = other.tryAcquire(key);
            taken.ifPresent(LockHandle::release);
            return taken.isPresent();
        }, "lock " + key + " is free");
    }
}
