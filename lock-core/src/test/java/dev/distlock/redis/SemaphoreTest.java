package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.HeldLock;
import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Semaphores through the service: permits shared up to the limit across services, waiters woken by a release, FIFO
 * when fair, a dead holder's permits back at its lease end, watchdog renewal, lost permits reported, withdrawn
 * non-blocking waiters, and bad input refused at the call with nothing written.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreTest {

    private static final LockOptions TWO = LockOptions.defaults().withPermits(2);

    private static final String LEASES = "distlock:{exports}:sem:leases";

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
    void permitsAreSharedUpToTheLimitAcrossServicesAndAReleaseWakesAWaiter() throws Exception {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        LockHandle one = first.acquire("exports", TWO);
        LockHandle two = first.acquire("exports", TWO); // the same thread again: a second permit, not a re-entry
        assertThat(two.fencingToken()).isGreaterThan(one.fencingToken());
        assertThat(second.tryAcquire("exports", TWO)).isEmpty();
        assertThat(first.heldLocks()).extracting(HeldLock::mode)
            .containsExactly(LockMode.SEMAPHORE, LockMode.SEMAPHORE);

        CompletableFuture<LockHandle> waiting = CompletableFuture
            .supplyAsync(() -> second.acquire("exports", TWO.withWaitTime(Duration.ofSeconds(30))));
        Await.until(Duration.ofSeconds(10), () -> "1".equals(this.redis.call("HGET",
                "distlock:{exports}:sem:permits", "waiting")), "the waiter was refused");
        one.release();
        LockHandle three = waiting.get(20, TimeUnit.SECONDS);
        assertThat(three.fencingToken()).isGreaterThan(two.fencingToken());
        assertThat(this.redis.call("ZCARD", LEASES)).isEqualTo("2");
        two.release();
        three.release();
        assertThat(this.redis.call("EXISTS", LEASES, "distlock:{exports}:sem:permits")).isEqualTo("0");
    }

    @Test
    void severalPermitsAtOnceAndADelayedReleaseKeepsThemCounted() {
        RedisLockService service = this.clients.service();
        LockOptions five = LockOptions.defaults().withPermits(5, 3);
        LockHandle three = service.acquire("exports", five);
        assertThat(service.tryAcquire("exports", five)).isEmpty();
        LockHandle two = service.tryAcquire("exports", LockOptions.defaults().withPermits(5, 2)).orElseThrow();
        assertThat(service.tryAcquire("exports", LockOptions.defaults().withPermits(5))).isEmpty();
        three.releaseAfter(Duration.ofMinutes(1));
        assertThat(service.tryAcquire("exports", LockOptions.defaults().withPermits(5))).as("kept for the delay")
            .isEmpty();
        two.release();
        assertThat(service.tryAcquire("exports", LockOptions.defaults().withPermits(5, 2))).isPresent();
    }

    @Test
    void aLowerLimitWaitsForHeldPermitsAndNeverRevokesThem() {
        RedisLockService service = this.clients.service();
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(service.acquire("exports", LockOptions.defaults().withPermits(4)));
        }
        LockOptions lowered = LockOptions.defaults().withPermits(2);
        assertThat(service.tryAcquire("exports", lowered)).isEmpty();
        held.remove(0).release();
        held.remove(0).release();
        assertThat(service.tryAcquire("exports", lowered)).as("2 held, limit 2").isEmpty();
        assertThat(held).allMatch(LockHandle::isHeld);
        held.remove(0).release();
        assertThat(service.tryAcquire("exports", lowered)).isPresent();
        assertThat(this.redis.lockField("distlock:{exports}:sem:permits", "count")).isEqualTo("2");
    }

    @Test
    void aDeadHoldersPermitsComeBackAtItsLeaseEnd() throws Exception {
        RedisLockService doomed = this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(1)));
        RedisLockService survivor = this.clients.service();
        doomed.acquire("exports", TWO);
        doomed.acquire("exports", TWO.withLeaseTime(Duration.ofSeconds(1)));
        doomed.close(); // as if the process died: no release, no renewal
        assertThat(survivor.tryAcquire("exports", TWO)).as("held until the lease ends").isEmpty();
        long leaseLeft = Long.parseLong(this.redis.call("PTTL", LEASES));
        assertThat(leaseLeft).isBetween(1L, 1000L);

        LockHandle back = survivor.acquire("exports", LockOptions.defaults().withPermits(2, 2)
            .withWaitTime(Duration.ofSeconds(20)));
        assertThat(back.isHeld()).isTrue();
        back.release();
    }

    @Test
    void theWatchdogRenewsPermitsPastTheirLease() throws Exception {
        RedisLockService service = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(300)));
        RedisLockService other = this.clients.service();
        LockHandle permit = service.acquire("exports", LockOptions.defaults().withPermits(1));
        double firstLeaseEnd = Double.parseDouble(this.redis.call("ZSCORE", LEASES, permit.ownerToken()));
        // the permit's lease end in Redis moves on with each renewal: wait until it lies four leases past the first
        Await.until(Duration.ofSeconds(10), () -> {
            String leaseEnd = this.redis.call("ZSCORE", LEASES, permit.ownerToken());
            return leaseEnd != null && Double.parseDouble(leaseEnd) >= firstLeaseEnd + 4 * 300;
        }, "the watchdog renews the permit past four leases");
        assertThat(permit.isHeld()).isTrue();
        assertThat(other.tryAcquire("exports", LockOptions.defaults().withPermits(1))).isEmpty();
        assertThat(service.renewingCount()).isEqualTo(1);
        permit.release();
        assertThat(other.tryAcquire("exports", LockOptions.defaults().withPermits(1))).isPresent();
    }

    @Test
    void aLostPermitIsReportedToItsHolderAndAtRelease() {
        RedisLockService service = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(500)));
        LockHandle permit = service.acquire("exports", TWO);
        LockHandle kept = service.acquire("exports", TWO);
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        permit.onLeaseLost(lost::set);
        this.redis.call("ZREM", LEASES, permit.ownerToken()); // the permit vanished (a failover that lost it)
        Await.until(Duration.ofSeconds(10), () -> lost.get() != null, "the loss is reported");
        assertThat(permit.isHeld()).isFalse();
        assertThat(kept.isHeld()).as("the other permit is its own lease").isTrue();
        assertThatThrownBy(permit::release).isInstanceOf(LeaseLostException.class);
        kept.release();
    }

    @Test
    void aWaitingNonBlockingAcquisitionCancelledByItsCallerTakesNothing() throws Exception {
        for (LockMode mode : List.of(LockMode.SEMAPHORE, LockMode.FAIR_SEMAPHORE)) {
            String key = "cancel-" + mode;
            LockOptions one = LockOptions.defaults().withMode(mode).withPermits(1);
            RedisLockService holderService = this.clients.service();
            RedisLockService service = this.clients.service();
            LockHandle holder = holderService.acquire(key, one);
            CompletableFuture<LockHandle> waiting = service.async()
                .acquire(key, one.withWaitTime(Duration.ofSeconds(30)));
            Await.until(Duration.ofSeconds(10), () -> "1".equals(this.redis.call("HGET",
                    "distlock:{" + key + "}:sem:permits", "waiting")), "the waiter was refused");
            waiting.cancel(false);
            holder.release();

            LockHandle next = this.clients.service().acquire(key, one.withWaitTime(Duration.ofSeconds(10)));
            assertThat(this.redis.lockField("distlock:{" + key + "}:sem:permits", "count")).isEqualTo("1");
            assertThat(this.redis.call("ZCARD", "distlock:{" + key + "}:sem:queue")).as("left the queue")
                .isEqualTo("0");
            assertThat(service.heldLocks()).isEmpty();
            next.release();
        }
    }

    @Test
    void fairWaitersAreServedInTheOrderTheyArrived() throws Exception {
        LockOptions fair = LockOptions.defaults().withMode(LockMode.FAIR).withPermits(1)
            .withWaitTime(Duration.ofSeconds(30));
        RedisLockService holderService = this.clients.service();
        LockHandle holder = holderService.acquire("queue", fair);
        List<Integer> served = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int arrival = i;
            RedisLockService service = this.clients.service();
            waiters.add(CompletableFuture.runAsync(() -> {
                try (LockHandle permit = service.acquire("queue", fair)) {
                    served.add(arrival);
                }
            }));
            Await.until(Duration.ofSeconds(10),
                    () -> Integer.toString(arrival + 1).equals(this.redis.call("ZCARD", "distlock:{queue}:sem:queue")),
                    "waiter " + arrival + " queued");
        }
        assertThat(holderService.tryAcquire("queue", fair)).as("nobody overtakes the queue").isEmpty();
        holder.release();
        CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(served).containsExactly(0, 1, 2, 3);
    }

    @Test
    void badInputIsRefusedAtTheCallAndLeavesNothingBehind() {
        RedisLockService service = this.clients.service();
        LockOptions defaults = LockOptions.defaults();
        assertThatThrownBy(() -> defaults.withPermits(0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("permit limit must be at least 1, but was 0");
        assertThatThrownBy(() -> defaults.withPermits(-3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withPermits(5, 6)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("between 1 and the limit of 5, but was 6");
        assertThatThrownBy(() -> defaults.withPermits(5, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withPermits(5).withOwner("me")).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("no owner");
        assertThatThrownBy(() -> defaults.withOwner("me").withPermits(5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withPermits(5).withMode(LockMode.READ))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> defaults.withMode(LockMode.WRITE).withPermits(5))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> service.acquire("exports", defaults.withMode(LockMode.SEMAPHORE)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("needs its limit");
        assertThatThrownBy(() -> service.async().tryAcquire("exports", defaults.withMode(LockMode.FAIR_SEMAPHORE)))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(defaults.withMode(LockMode.FAIR).withPermits(3).mode()).isEqualTo(LockMode.FAIR_SEMAPHORE);
        assertThat(defaults.withPermits(3).withMode(LockMode.FAIR).mode()).isEqualTo(LockMode.FAIR_SEMAPHORE);
        assertThat(this.redis.call("DBSIZE")).isEqualTo("0");
    }

    @Test
    void aWaitThatEndsWithoutAPermitThrowsTheTimeout() {
        RedisLockService service = this.clients.service();
        LockHandle one = service.acquire("exports", LockOptions.defaults().withPermits(1));
        assertThatThrownBy(() -> service.acquire("exports",
                LockOptions.defaults().withPermits(1).withWaitTime(Duration.ofMillis(200))))
            .isInstanceOf(LockTimeoutException.class);
        assertThat(service.async().tryAcquire("exports", LockOptions.defaults().withPermits(1)).join())
            .isEqualTo(Optional.empty());
        one.release();
    }

    @Test
    void fencingTokensRiseAboveALastTokenAheadOfTheClock() {
        RedisLockService service = this.clients.service();
        LockHandle first = service.acquire("exports", TWO);
        long ahead = first.fencingToken() + 3_600_000_000L; // an hour of microseconds ahead (a failover's clock)
        this.redis.call("SET", "distlock:{exports}:sem:fence", Long.toString(ahead), "PX", "60000");
        LockHandle second = service.acquire("exports", TWO);
        assertThat(second.fencingToken()).isEqualTo(ahead + 1);
        first.release();
        LockHandle third = service.acquire("exports", TWO);
        assertThat(third.fencingToken()).isEqualTo(ahead + 2);
        assertThat(this.redis.call("GET", "distlock:{exports}:sem:fence")).isEqualTo(Long.toString(ahead + 2));
        second.release();
        third.release();
    }
}
