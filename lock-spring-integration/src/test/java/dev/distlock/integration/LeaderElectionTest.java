package dev.distlock.integration;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Spring Integration's leader election on the registry: two nodes on one Redis, exactly one leads, and leadership
 * moves when the leader's lock service closes (as when its process ends), once its lease lapses.
 */
@RedisTest
class LeaderElectionTest {

    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

    /** How many nodes think they lead at once; granted and revoked keep it. */
    private final AtomicInteger leaders = new AtomicInteger();

    private final AtomicInteger mostLeadersAtOnce = new AtomicInteger();

    private RedisServices services;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.services = new RedisServices(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.initiators.forEach(LockRegistryLeaderInitiator::stop);
        this.services.close();
    }

    @Test
    void exactlyOneOfTwoNodesLeadsAndLeadershipMovesWhenTheLeadersServiceCloses() {
        RedisLockService firstService = this.services.service(Duration.ofSeconds(3));
        RedisLockService secondService = this.services.service(Duration.ofSeconds(3));
        LockRegistryLeaderInitiator first = initiator(firstService, "first");
        LockRegistryLeaderInitiator second = initiator(secondService, "second");
        first.start();
        second.start();

        await(() -> first.getContext().isLeader() || second.getContext().isLeader(), "one node leads");
        LockRegistryLeaderInitiator leader = first.getContext().isLeader() ? first : second;
        LockRegistryLeaderInitiator follower = (leader == first) ? second : first;
        // several heartbeats (each leader re-checks its lock every 100 ms): the follower stays a follower
        long until = System.nanoTime() + Duration.ofMillis(600).toNanos();
        await(() -> {
            assertThat(follower.getContext().isLeader()).isFalse();
            return System.nanoTime() - until > 0;
        }, "heartbeats pass");
        assertThat(this.mostLeadersAtOnce.get()).isEqualTo(1);

        ((leader == first) ? firstService : secondService).close();
        await(() -> follower.getContext().isLeader(), "the other node leads after the leader's service closed");
        await(() -> !leader.getContext().isLeader(), "the old leader knows it no longer leads");
        // Not checked after the close: Spring's LockRegistryLeaderInitiator unlocks the old leader's lock before it
        // calls onRevoked, so in that moment the follower may be granted first (seen once in nine runs here). The
        // lock itself never had two holders: the follower got it only after the old leader's release.
    }

    private LockRegistryLeaderInitiator initiator(RedisLockService service, String id) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(new DistributedLockRegistry(service),
                new CountingCandidate(id));
        initiator.setHeartBeatMillis(100);
        initiator.setBusyWaitMillis(20);
        this.initiators.add(initiator);
        return initiator;
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Not true within " + DEADLINE + ": " + what);
            }
            try {
                Thread.sleep(10);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for: " + what, ex);
            }
        }
    }

    /** A candidate that counts the nodes leading at once. */
    private final class CountingCandidate extends DefaultCandidate {

        CountingCandidate(String id) {
            super(id, "leader");
        }

        @Override
        public void onGranted(Context context) {
            super.onGranted(context);
            LeaderElectionTest.this.mostLeadersAtOnce.accumulateAndGet(LeaderElectionTest.this.leaders.incrementAndGet(),
                    Math::max);
        }

        @Override
        public void onRevoked(Context context) {
            LeaderElectionTest.this.leaders.decrementAndGet();
            super.onRevoked(context);
        }
    }
}
