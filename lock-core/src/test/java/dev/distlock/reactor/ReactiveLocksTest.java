package dev.distlock.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisClients;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The Reactor view, against a real Redis. */
@RedisTest
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReactiveLocksTest {

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
    void lockedMonosOfTwoServicesNeverOverlapAndSeeTheirLockInTheContext() {
        ReactiveLocks first = ReactiveLocks.of(this.clients.service());
        ReactiveLocks second = ReactiveLocks.of(this.clients.service());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60));
        List<Long> tokens = Flux.range(0, 100)
            .flatMap(i -> ((i % 2 == 0) ? first : second).executeLocked("shared", options,
                    lock -> Mono.deferContextual(context -> {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        assertThat(ReactiveLocks.current(context)).isSameAs(lock);
                        return Mono.delay(Duration.ofMillis(1)).map(tick -> {
                            inside.decrementAndGet();
                            return lock.fencingToken();
                        });
                    })), 100)
            .collectList()
            .block(Duration.ofSeconds(90));
        assertThat(overlaps).hasValue(0);
        assertThat(tokens).hasSize(100).doesNotHaveDuplicates();
    }

    @Test
    void nothingHappensBeforeSubscriptionAndCancellingAWaitLeavesNothingHeld() {
        RedisLockService holderService = this.clients.service();
        ReactiveLocks locks = ReactiveLocks.of(this.clients.service());
        Mono<LockHandle> later = locks.acquire("idle", LockOptions.defaults());
        assertThat(this.redis.call("EXISTS", "distlock:{idle}:lock")).as("not subscribed yet").isEqualTo("0");
        LockHandle holder = holderService.acquire("busy", LockOptions.defaults());
        Disposable waiting = locks.acquire("busy", LockOptions.defaults().withWaitTime(Duration.ofMinutes(1)))
            .subscribe();
        Await.until(Duration.ofSeconds(30), () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{busy}:released")
            .endsWith("1"), "the acquisition waits");
        waiting.dispose();
        holder.release();
        LockHandle next = holderService.tryAcquire("busy", LockOptions.defaults()).orElseThrow();
        next.release();
        LockHandle idle = later.block(Duration.ofSeconds(10));
        locks.release(idle).block(Duration.ofSeconds(10));
        assertThat(locks.tryAcquire("idle", LockOptions.defaults()).blockOptional()).isPresent();
    }

    /**
     * Cancels that land around the moment the acquisition completes: a lock the subscriber received it releases, and
     * one it never received is released by the view, so that nothing stays held (a leak would be renewed for ever).
     */
    @Test
    void cancelsRacingTheGrantLeaveNothingHeld() {
        RedisLockService service = this.clients.service();
        ReactiveLocks locks = ReactiveLocks.of(service);
        for (int i = 0; i < 200; i++) {
            // releases whatever reaches it, even after its cancel (Reactor's lambda subscriber would drop it)
            BaseSubscriber<LockHandle> subscription = new BaseSubscriber<>() {
                @Override
                protected void hookOnNext(LockHandle lock) {
                    lock.releaseAsync();
                }
            };
            locks.acquire("race:" + i, LockOptions.defaults()).subscribe(subscription);
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
            subscription.dispose();
        }
        Await.until(Duration.ofSeconds(10), () -> service.heldLocks().isEmpty(), "every lock is released");
        assertThat(service.renewingCount()).isZero();
    }
}
