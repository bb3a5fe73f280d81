package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;
import dev.distlock.test.SentinelTopology;

/**
 * A master with one replica and three Sentinels; the master is killed right after a lock is granted and Sentinel
 * promotes the replica. Replication is asynchronous: without acknowledgements the lock may not have reached the
 * replica and vanishes in the failover (its holder is told); with {@code replicaAcknowledgements(1, ...)} the grant
 * waits for the replica, and the lock survives.
 */
@RedisTest
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SentinelFailoverTest {

    private static final Duration LEASE = Duration.ofSeconds(8);

    private static final Duration FAILOVER = Duration.ofSeconds(30);

    private final Clients clients = new Clients();

    @AfterEach
    void tearDown() {
        this.clients.close();
    }

    private RedisLockService service(SentinelTopology topology, boolean acknowledged) {
        return this.clients.service(this.clients.template(topology, Duration.ofSeconds(1)),
                b -> acknowledged ? b.watchdogLease(LEASE).replicaAcknowledgements(1, Duration.ofMillis(500))
                        : b.watchdogLease(LEASE).replicaAcknowledgements(0, Duration.ofMillis(500))); // opted out
    }

    @Test
    void withoutAcknowledgementsALockCanVanishInAFailoverAndItsHolderIsTold(RedisServers servers) throws Exception {
        SentinelTopology topology = servers.startSentinelTopology("locks");
        RedisLockService locks = service(topology, false);
        RedisLockService others = service(topology, false);
        RedisNode replica = topology.replicas().get(0);

        // Hold the replica back: with its socket full, the master keeps the next writes in its own buffer.
        replica.pause();
        topology.master().call("EVAL", "redis.call('SET', KEYS[1], string.rep('x', 33554432))", "1", "filler");
        LockHandle lock = locks.acquire("report");
        CountDownLatch told = new CountDownLatch(1);
        lock.onLeaseLost(reason -> told.countDown());
        topology.master().kill(); // the grant dies with the master's buffer
        replica.resume();
        RedisNode promoted = topology.awaitFailover(FAILOVER);

        assertThat(promoted.lockField("distlock:{report}:lock", "owner")).as("the lock vanished").isNull();
        assertThat(told.await(20, TimeUnit.SECONDS)).as("its holder is told").isTrue();
        assertThat(lock.isHeld()).isFalse();
        try (LockHandle next = others.acquire("report", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
            assertThat(next.isHeld()).isTrue();
        }
    }

    @Test
    void withAcknowledgementsTheLockSurvivesTheFailover(RedisServers servers) throws Exception {
        SentinelTopology topology = servers.startSentinelTopology("locks");
        RedisLockService locks = service(topology, true);
        RedisLockService others = service(topology, true);

        LockHandle lock = locks.acquire("report"); // returns once the replica acknowledged the grant
        CountDownLatch told = new CountDownLatch(1);
        lock.onLeaseLost(reason -> told.countDown());
        topology.master().kill();
        RedisNode promoted = topology.awaitFailover(FAILOVER);

        assertThat(promoted.lockField("distlock:{report}:lock", "owner")).isEqualTo(lock.ownerToken());
        assertThat(others.tryAcquire("report")).as("nobody else gets it on the new master").isEmpty();
        assertThat(lock.isHeld()).isTrue();
        // The promoted master has no replica left to acknowledge renewals, so they would not count: give it one,
        // and the watchdog's renewals on the new master move the lease past its original deadline.
        servers.startReplicaOf(promoted);
        long firstDeadline = lock.leaseDeadline().toEpochMilli();
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (lock.leaseDeadline().toEpochMilli() <= firstDeadline + 1000 && System.nanoTime() < until) {
            Thread.sleep(50);
        }
        assertThat(lock.leaseDeadline().toEpochMilli()).isGreaterThan(firstDeadline + 1000);
        assertThat(lock.isHeld()).isTrue();
        assertThat(told.getCount()).as("no loss reported").isEqualTo(1);
        lock.release();
        assertThat(promoted.lockField("distlock:{report}:lock", "owner")).isNull();
    }

    @Test
    void withAcknowledgementsAGrantNoReplicaConfirmsIsUndone(RedisServers servers) throws Exception {
        SentinelTopology topology = servers.startSentinelTopology("locks");
        RedisLockService locks = service(topology, true);
        RedisNode replica = topology.replicas().get(0);
        replica.pause();
        try {
            assertThatThrownBy(() -> locks.acquire("report")).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("only 0 of the 1 replicas required acknowledged it")
                .hasMessageContaining("undone");
            assertThat(topology.master().lockField("distlock:{report}:lock", "owner")).isNull();
        }
        finally {
            replica.resume();
        }
    }
}
