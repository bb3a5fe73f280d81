package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;

/**
 * Quorum mode's non-blocking side at close() and when its caller gives up: every pending future completes, and a
 * handle's release still goes through, in both styles.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumCloseTest extends QuorumTest {

    private static final LockOptions WAITING = LockOptions.defaults().withWaitTime(Duration.ofMinutes(1));

    @Test
    void acquisitionsWaitingBetweenAttemptsCompleteWhenTheServiceCloses() throws Exception {
        QuorumLockService holderService = this.clients.service();
        QuorumLockService service = this.clients.service();
        LockHandle holder = holderService.acquire("busy", LockOptions.defaults());
        List<CompletableFuture<LockHandle>> pending = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            pending.add(service.async().acquire("busy", WAITING));
        }
        Thread.sleep(500); // refused at least once: each waits on the timer for its next attempt (50-250 ms apart)
        service.close();
        for (CompletableFuture<LockHandle> future : pending) {
            Await.until(Duration.ofSeconds(5), future::isDone, "every pending acquisition completes after close()");
            assertThat(future).isCompletedExceptionally();
        }
        holder.release();
    }

    @Test
    void aHandleIsReleasedInBothStylesAfterItsServiceClosed() throws Exception {
        QuorumLockService service = this.clients.service();
        QuorumLockService other = this.clients.service();
        LockHandle asyncReleased = service.async().acquire("first", LockOptions.defaults()).get(30, TimeUnit.SECONDS);
        LockHandle released = service.acquire("second", LockOptions.defaults());
        service.close();
        asyncReleased.releaseAsync().get(30, TimeUnit.SECONDS);
        released.release();
        assertThat(other.tryAcquire("first", LockOptions.defaults())).isPresent();
        assertThat(other.tryAcquire("second", LockOptions.defaults())).isPresent();
    }

    @Test
    void anAcquisitionItsCallerTimedOutIsWithdrawn() {
        QuorumLockService holderService = this.clients.service();
        QuorumLockService service = this.clients.service();
        QuorumLockService other = this.clients.service();
        LockHandle holder = holderService.acquire("sku", LockOptions.defaults());
        CompletableFuture<LockHandle> waiting = service.async().acquire("sku", WAITING)
            .orTimeout(200, TimeUnit.MILLISECONDS);
        Await.until(Duration.ofSeconds(5), waiting::isDone, "the caller's timeout fires");
        holder.release();
        // a waiter that kept trying would take the lock within its 50-250 ms retry pause and keep it renewed
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (System.nanoTime() - end < 0) {
            other.tryAcquire("sku", LockOptions.defaults()).ifPresent(LockHandle::release);
        }
        assertThat(service.heldLocks()).isEmpty();
        Await.until(Duration.ofSeconds(10), () -> {
            var taken = other.tryAcquire("sku", LockOptions.defaults());
            taken.ifPresent(LockHandle::release);
            return taken.isPresent();
        }, "the lock is free");
    }
}
