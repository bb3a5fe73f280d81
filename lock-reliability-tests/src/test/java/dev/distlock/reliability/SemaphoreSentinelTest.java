package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;
import dev.distlock.test.SentinelTopology;

/**
 * Semaphores through Sentinel (a master, one replica, three Sentinels), by clients that find the master through the
 * Sentinels as applications do: the limit holds across two services, a release wakes a waiter of the other service
 * by pub/sub. Replication is asynchronous: without acknowledgements a permit granted just before the master dies can
 * vanish in the failover, and its holder is told; with {@code replicaAcknowledgements} a grant waits for the replica
 * (and is undone when none confirms it), and the permits held survive a failover, the limit still holding on the
 * promoted master.
 */
@RedisTest
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SemaphoreSentinelTest {

    /** Long enough that only a release, never a lease's end, can let the waiter in within the test's bounds. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    private static final Duration LEASE = Duration.ofSeconds(8);

    private static final Duration FAILOVER = Duration.ofSeconds(30);

    private final Clients clients = new Clients();

    @AfterEach
    void tearDown() {
        this.clients.close();
    }

    /**
     * With acknowledgements, a replica gets 2 s to confirm each write (a replica just attached to a promoted master, on a
     * loaded 2-core machine, missed 500 ms), and calls 3 s to answer, since a WAIT holds the connection that long.
     */
    private RedisLockService service(SentinelTopology topology, Duration lease, boolean acknowledged) {
        if (acknowledged) {
            return this.clients.service(this.clients.template(topology, Duration.ofSeconds(3)),
                    b -> b.watchdogLease(lease).replicaAcknowledgements(1, Duration.ofSeconds(2)));
        }
        return this.clients.service(this.clients.template(topology, Duration.ofSeconds(1)),
                b -> b.watchdogLease(lease).replicaAcknowledgements(0, Duration.ofMillis(500))); // opted out
    }

    @Test
    void theLimitHoldsAcrossServicesAndAReleaseWakesAWaiterElsewhere(RedisServers servers) throws Exception {
        SentinelTopology topology = servers.startSentinelTopology("permits");
        RedisLockService first = service(topology, LONG_LEASE, false);
        RedisLockService second = service(topology, LONG_LEASE, false);
        for (LockMode mode : List.of(LockMode.SEMAPHORE, LockMode.FAIR_SEMAPHORE)) {
            String key = "exports-" + mode;
            LockOptions three = LockOptions.defaults().withMode(mode).withPermits(3);
            LockHandle two = first.acquire(key, three.withPermits(3, 2));
            LockHandle one = second.acquire(key, three);
            assertThat(second.tryAcquire(key, three)).as("a fourth permit of three").isEmpty();
            assertThat(first.tryAcquire(key, three)).as("nor from the other service").isEmpty();

            CompletableFuture<LockHandle> waiter = CompletableFuture
                .supplyAsync(() -> second.acquire(key, three.withPermits(3, 2).withWaitTime(Duration.ofSeconds(25))));
            Await.until(Duration.ofSeconds(10),
                    () -> topology.master().lockField("distlock:{" + key + "}:sem:permits", "waiting") != null,
                    "the waiter of " + key + " waits in Redis");
            long releasedAt = System.nanoTime();
            two.release();
            LockHandle next = waiter.get(20, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as("woken by the release of " + key)
                .isLessThan(Duration.ofSeconds(10));
            assertThat(next.fencingToken()).isGreaterThan(Math.max(two.fencingToken(), one.fencingToken()));
            assertThat(first.tryAcquire(key, three)).as("three of three in use again").isEmpty();
            next.release();
            one.release();
            assertThat(topology.master().call("EXISTS", "distlock:{" + key + "}:sem:leases")).isEqualTo("0");
        }
    }

    @Test
    void withAcknowledgementsHeldPermitsSurviveAFailoverAndTheLimitStillHolds(RedisServers servers)
            throws Exception {
        SentinelTopology topology = servers.startSentinelTopology("permits");
        RedisLockService first = service(topology, LEASE, true);
        RedisLockService second = service(topology, LEASE, true);
        LockOptions three = LockOptions.defaults().withPermits(3);

        LockHandle two = first.acquire("exports", three.withPermits(3, 2)); // returns once the replica has it
        LockHandle one = second.acquire("exports", three);
        CountDownLatch told = new CountDownLatch(1);
        two.onLeaseLost(reason -> told.countDown());
        one.onLeaseLost(reason -> told.countDown());
        topology.master().kill();
        RedisNode promoted = topology.awaitFailover(FAILOVER);

        assertThat(promoted.call("ZSCORE", "distlock:{exports}:sem:leases", two.ownerToken())).isNotNull();
        assertThat(promoted.call("ZSCORE", "distlock:{exports}:sem:leases", one.ownerToken())).isNotNull();
        assertThat(second.tryAcquire("exports", three)).as("no fourth permit on the new master").isEmpty();
        // The promoted master has no replica left to acknowledge renewals: give it one, and the watchdog's renewals
        // on the new master move both leases past their first deadlines.
        servers.startReplicaOf(promoted);
        long twoDeadline = two.leaseDeadline().toEpochMilli();
        long oneDeadline = one.leaseDeadline().toEpochMilli();
        Await.until(Duration.ofSeconds(30), () -> two.leaseDeadline().toEpochMilli() > twoDeadline + 1000
                && one.leaseDeadline().toEpochMilli() > oneDeadline + 1000, "the permits are renewed after the failover");
        assertThat(two.isHeld()).isTrue();
        assertThat(one.isHeld()).isTrue();
        assertThat(told.getCount()).as("no loss reported").isEqualTo(1);

        two.release();
        try (LockHandle next = second.acquire("exports", three.withPermits(3, 2))) {
            assertThat(next.fencingToken()).isGreaterThan(Math.max(two.fencingToken(), one.fencingToken()));
            assertThat(first.tryAcquire("exports", three)).isEmpty();
        }
        one.release();
        assertThat(promoted.call("EXISTS", "distlock:{exports}:sem:leases")).isEqualTo("0");
    }

    @Test
    void withoutAcknowledgementsAPermitCanVanishInAFailoverAndItsHolderIsTold(RedisServers servers) throws Exception {
        SentinelTopology topology = servers.startSentinelTopology("permits");
        RedisLockService first = service(topology, LEASE, false);
        RedisLockService second = service(topology, LEASE, false);
        RedisNode replica = topology.replicas().get(0);
        LockOptions three = LockOptions.defaults().withPermits(3);

        // Hold the replica back: with its socket full, the master keeps the next writes in its own buffer.
        replica.pause();
        topology.master().call("EVAL", "redis.call('SET', KEYS[1], string.rep('x', 33554432))", "1", "filler");
        LockHandle permits = first.acquire("exports", three.withPermits(3, 3));
        CountDownLatch told = new CountDownLatch(1);
        permits.onLeaseLost(reason -> told.countDown());
        topology.master().kill(); // the grant dies with the master's buffer
        replica.resume();
        RedisNode promoted = topology.awaitFailover(FAILOVER);

        assertThat(promoted.call("EXISTS", "distlock:{exports}:sem:leases")).as("the permits vanished").isEqualTo("0");
        assertThat(told.await(20, TimeUnit.SECONDS)).as("their holder is told").isTrue();
        assertThat(permits.isHeld()).isFalse();
        try (LockHandle all = second.acquire("exports", three.withPermits(3, 3).withWaitTime(Duration.ofSeconds(20)))) {
            assertThat(all.isHeld()).isTrue();
        }
    }

    @Test
    void withAcknowledgementsAGrantNoReplicaConfirmsIsUndone(RedisServers servers) {
        SentinelTopology topology = servers.startSentinelTopology("permits");
        RedisLockService permits = service(topology, LEASE, true);
        RedisNode replica = topology.replicas().get(0);
        replica.pause();
        try {
            assertThatThrownBy(() -> permits.acquire("exports", LockOptions.defaults().withPermits(3, 2)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("only 0 of the 1 replicas required acknowledged it")
                .hasMessageContaining("undone");
            assertThat(topology.master().call("ZCARD", "distlock:{exports}:sem:leases")).isEqualTo("0");
            assertThat(topology.master().lockField("distlock:{exports}:sem:permits", "count")).isIn(null, "0");
        }
        finally {
            replica.resume();
        }
    }
}
