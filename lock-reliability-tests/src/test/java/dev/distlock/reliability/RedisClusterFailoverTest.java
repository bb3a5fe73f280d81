package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.Replication;

/**
 * A real Redis Cluster of three masters with one replica each. A master is failed over while a service holds locks
 * on its slots (a watchdog lease and a fixed lease) and threads of that service and of a second one wait for them:
 * gracefully ({@code CLUSTER FAILOVER} on the replica), and by killing it (the cluster promotes the replica after
 * {@code cluster-node-timeout}, 2 s here). Replicated locks survive with their holders, renewal goes on on the new
 * master, both services subscribe again there, and a release wakes the waiters at once. A lock the replica never
 * received vanishes: its holder is told, but another service may be granted it first. The clients refresh their view
 * of the cluster as docs/topologies.md says. Each test fails over another shard of the one cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisClusterFailoverTest {

    private static final Logger LOG = LoggerFactory.getLogger(RedisClusterFailoverTest.class);

    /** Outlasts a crash failover (node timeout, election, the clients' refresh) with room to spare. */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(15);

    private static final Duration RENEWAL_INTERVAL = Duration.ofSeconds(1);

    private static final Duration FIXED_LEASE = Duration.ofSeconds(60);

    private static final Duration REFRESH_PERIOD = Duration.ofSeconds(1);

    private static final Duration FAILOVER = Duration.ofSeconds(30);

    private static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * Release to grant, for a waiter woken by the release message. A waiter that missed it checks again by itself
     * within 5 s ({@code WaitPause.RECHECK_MAX_SECONDS}), so this bound tells the two apart. A waiter whose attempt
     * went to the dead master just before the client saw the new one gets its answer, an error, at the command
     * timeout only: it may take that much longer.
     */
    private static final Duration PROMPT = Duration.ofMillis(2500);

    private final RedisServers servers = RedisServers.create();

    private ClusterTopology cluster;

    private TopologyClients clients;

    private ShardLocks locks;

    private final List<LeaseLostException> lost = new ArrayList<>();

    @BeforeAll
    void startCluster() {
        this.cluster = this.servers.startCluster(3, 1);
    }

    @AfterAll
    void stopCluster() {
        this.servers.close();
    }

    @BeforeEach
    void setUp() {
        this.clients = new TopologyClients();
        this.locks = new ShardLocks();
        this.lost.clear();
    }

    @AfterEach
    void tearDown() {
        this.locks.close();
        this.clients.close();
    }

    @Test
    void aGracefulFailoverKeepsHeldLocksTheirRenewalAndPromptWakeUps() throws Exception {
        RedisNode master = this.cluster.masters().get(0);
        failOverWithLocksHeld(master, () -> this.cluster.replicasOf(master).get(0).call("CLUSTER", "FAILOVER"));
    }

    @Test
    void aCrashFailoverKeepsReplicatedLocksTheirRenewalAndPromptWakeUps() throws Exception {
        RedisNode master = this.cluster.masters().get(1);
        failOverWithLocksHeld(master, master::kill);
    }

    @Test
    void aLockTheReplicaNeverReceivedIsGoneAfterACrashFailoverAndItsHolderIsTold() throws Exception {
        RedisNode master = this.cluster.masters().get(2);
        RedisNode replica = this.cluster.replicasOf(master).get(0);
        RedisLockService first = service();
        RedisLockService second = service();
        String key = keyOn(master, "unreplicated-");
        String filler = "{" + keyOn(master, "filler-") + "}:data"; // in the lock's shard too

        // Hold the replica back: with its socket full, the master keeps the next writes in its own buffer.
        replica.pause();
        LockHandle lock;
        try {
            master.call(Duration.ofSeconds(30), "EVAL", "redis.call('SET', KEYS[1], string.rep('x', 33554432))", "1",
                    filler); // seconds on a loaded machine
            lock = first.acquire(key);
            master.kill(); // the grant dies with the master's buffer
        }
        finally {
            replica.resume();
        }
        CountDownLatch told = new CountDownLatch(1);
        AtomicLong toldAt = new AtomicLong();
        lock.onLeaseLost(reason -> {
            toldAt.set(System.nanoTime());
            told.countDown();
        });
        RedisNode promoted = this.cluster.awaitFailover(master, FAILOVER);
        long failedOverAt = System.nanoTime();
        assertThat(promoted.lockField(lockHash(key), "owner")).as("the lock vanished").isNull();

        LockHandle next = null;
        for (int tries = 0; next == null; tries++) {
            try {
                next = second.acquire(key, LockOptions.defaults().withWaitTime(WAIT));
            }
            catch (LockUnavailableException ex) {
                if (tries >= 100) {
                    throw ex;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // a caller's pause before a retry
            }
        }
        long grantedAt = System.nanoTime();
        assertThat(told.await(30, TimeUnit.SECONDS)).as("the holder is told").isTrue();
        assertThat(lock.isHeld()).isFalse();
        LOG.info("Lock lost in a crash failover: holder told {} ms after the failover; another service granted it "
                + "{} ms after the failover", millis(toldAt.get() - failedOverAt), millis(grantedAt - failedOverAt));
        next.release();
    }

    /**
     * Holds a watchdog lock and a fixed-lease lock on {@code master}'s slots with waiters in both services, fails it
     * over with {@code failover}, and checks the holders, the subscriptions and the waiters.
     */
    private void failOverWithLocksHeld(RedisNode master, Runnable failover) throws Exception {
        RedisNode replica = this.cluster.replicasOf(master).get(0);
        RedisLockService first = service();
        RedisLockService second = service();
        String watched = keyOn(master, "watchdog-");
        String fixed = keyOn(master, "fixed-");
        ShardLocks.Held watchdogLock = this.locks.hold(first, "holder", watched, LockOptions.defaults());
        ShardLocks.Held fixedLock = this.locks.hold(first, "holder", fixed,
                LockOptions.defaults().withLeaseTime(FIXED_LEASE));
        for (String key : List.of(watched, fixed)) {
            this.locks.startWaiter(first, "local waiter of " + key, key, WAIT);
            this.locks.startWaiter(second, "remote waiter of " + key, key, WAIT);
        }
        for (String key : List.of(watched, fixed)) {
            Await.until(Duration.ofSeconds(10), () -> shardSubscribers(channel(key)) == 2,
                    "both services subscribed to the release channel of " + key);
        }
        Replication.awaitCaughtUp(master, List.of(replica), Duration.ofSeconds(10));

        long started = System.nanoTime();
        failover.run();
        RedisNode promoted = this.cluster.awaitFailover(master, FAILOVER);
        Instant failedOver = Instant.now();
        LOG.info("Failover of {} to {} took {} ms", master.port(), promoted.port(),
                millis(System.nanoTime() - started));
        assertThat(promoted).isSameAs(replica);

        // holders: both locks are on the promoted replica, and the watchdog renews on it
        for (ShardLocks.Held held : List.of(watchdogLock, fixedLock)) {
            assertThat(promoted.lockField(lockHash(held.lock.key()), "owner")).as(held.lock.key())
                .isEqualTo(held.lock.ownerToken());
            assertThat(held.lock.isHeld()).isTrue();
        }
        Instant renewedPast = failedOver.plus(WATCHDOG_LEASE).plus(RENEWAL_INTERVAL);
        Await.until(WATCHDOG_LEASE, () -> watchdogLock.lock.leaseDeadline().isAfter(renewedPast),
                "the watchdog renewed the lock after the failover");
        long readAt = System.nanoTime();
        long ttl = Long.parseLong(promoted.call("PTTL", lockHash(watched)));
        // renewed: above what the TTL read once would have decayed to by now (not merely above it: a read right after
        // a renewal is higher than any later one)
        Await.until(Duration.ofSeconds(10), () -> Long.parseLong(promoted.call("PTTL", lockHash(watched)))
                > ttl - millis(System.nanoTime() - readAt) + 500,
                "a renewal moved the lock's TTL on the promoted replica");
        assertThat(Long.parseLong(promoted.call("PTTL", lockHash(fixed)))).isPositive()
            .isLessThanOrEqualTo(FIXED_LEASE.toMillis());

        // waiters: subscribed again on the new master, woken by the release message
        for (String key : List.of(watched, fixed)) {
            try {
                Await.until(Duration.ofSeconds(15), () -> subscribersOn(promoted, channel(key)) == 2,
                        "both services subscribed to the release channel of " + key + " on the promoted replica");
            }
            catch (AssertionError ex) {
                throw new AssertionError(ex.getMessage() + "; sharded subscribers by port: "
                        + subscriptionsByNode(channel(key)), ex);
            }
        }
        fixedLock.release();
        watchdogLock.release();
        List<ShardLocks.Grant> grants = this.locks.grants(Duration.ofSeconds(30));
        LOG.info("After the failover, release to grant: {}", grants);
        assertThat(grants).allSatisfy(grant -> assertThat(grant.sinceRelease()).as(grant.waiter())
            .isLessThan(grant.failedAfterRelease() ? TopologyClients.COMMAND_TIMEOUT.plus(PROMPT) : PROMPT));
        assertThat(this.locks.overlaps()).isEmpty();
        assertThat(this.lost).isEmpty();
    }

    private RedisLockService service() {
        return this.clients.service(this.clients.clusterFollowingFailovers(this.cluster, REFRESH_PERIOD),
                // opted out of the default acknowledgements: after the crash the new master has no replica until the
                // old one rejoins, and its renewals would fail (docs/safety-restarts.md); this test shows the behaviour
                // without
                b -> b.replicaAcknowledgements(0, Duration.ofMillis(500)).watchdogLease(WATCHDOG_LEASE)
                    .renewalInterval(RENEWAL_INTERVAL).listener(event -> {
                    if (event instanceof LockEvent.LeaseLost leaseLost) {
                        synchronized (RedisClusterFailoverTest.this.lost) {
                            RedisClusterFailoverTest.this.lost.add(leaseLost.reason());
                        }
                    }
                }));
    }

    /** Sharded subscribers of {@code channel} over all running nodes. */
    private int shardSubscribers(String channel) {
        int subscribers = 0;
        for (RedisNode node : this.cluster.nodes()) {
            if (node.isRunning()) {
                subscribers += subscribersOn(node, channel);
            }
        }
        return subscribers;
    }

    private String subscriptionsByNode(String channel) {
        StringBuilder text = new StringBuilder();
        for (RedisNode node : this.cluster.nodes()) {
            text.append(node.port()).append('=').append(node.isRunning() ? subscribersOn(node, channel) : -1)
                .append(' ');
        }
        return text.toString();
    }

    private static int subscribersOn(RedisNode node, String channel) {
        String reply = node.call("PUBSUB", "SHARDNUMSUB", channel);
        return Integer.parseInt(reply.substring(reply.lastIndexOf('\n') + 1));
    }

    /** A key whose lock lives on {@code master}. */
    private String keyOn(RedisNode master, String prefix) {
        for (int i = 0;; i++) {
            if (this.cluster.masterForKey(lockHash(prefix + i)) == master) {
                return prefix + i;
            }
        }
    }

    private static String lockHash(String key) {
        return "distlock:{" + key + "}:lock";
    }

    private static String channel(String key) {
        return "distlock:{" + key + "}:released";
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
