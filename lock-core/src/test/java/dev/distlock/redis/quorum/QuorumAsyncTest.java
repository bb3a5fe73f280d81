package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;

/** Quorum mode's non-blocking side: exclusion across two services, a stopped master, and cancellation. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumAsyncTest extends QuorumTest {

    @Test
    void asyncCallsOfTwoServicesNeverOverlapWithAMasterStopped() {
        masters.get(0).stop();
        AsyncLockService first = this.clients.service().async();
        AsyncLockService second = this.clients.service().async();
        Executor later = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(90));
        List<CompletableFuture<Long>> cycles = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            cycles.add(((i % 2 == 0) ? first : second).executeLocked("counter", options, lock -> {
                if (inside.incrementAndGet() != 1) {
                    overlaps.incrementAndGet();
                }
                return CompletableFuture.supplyAsync(() -> {
                    inside.decrementAndGet();
                    return lock.fencingToken();
                }, later);
            }));
        }
        CompletableFuture.allOf(cycles.toArray(CompletableFuture[]::new)).orTimeout(100, TimeUnit.SECONDS).join();
        assertThat(overlaps).hasValue(0);
        assertThat(cycles.stream().map(CompletableFuture::join).distinct()).hasSize(20);
    }

    @Test
    void aCancelledWaitLeavesNothingHeldAndAHeldLockIsReportedAsHeld() {
        QuorumLockService holderService = this.clients.service();
        QuorumLockService other = this.clients.service();
        AsyncLockService locks = this.clients.service().async();
        LockHandle holder = holderService.acquire("busy", LockOptions.defaults());
        assertThat(locks.tryAcquire("busy", LockOptions.defaults()).join()).isEmpty();
        CompletableFuture<LockHandle> waiting = locks.acquire("busy",
                LockOptions.defaults().withWaitTime(Duration.ofMinutes(1)));
        assertThat(waiting.cancel(false)).isTrue();
        holder.release();
        // an attempt already under way at the cancel releases what it got; a leak would be renewed for ever
        Await.until(Duration.ofSeconds(20), () -> {
            Optional<LockHandle> next = other.tryAcquire("busy", LockOptions.defaults());
            next.ifPresent(lock -> lock.releaseAsync().join());
            return next.isPresent();
        }, "the cancelled wait holds nothing");
    }
}
