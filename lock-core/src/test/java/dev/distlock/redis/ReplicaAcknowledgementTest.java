package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.Replication;

/**
 * Replica acknowledgements against a real master with one replica: a non-blocking grant and a local hand-off are
 * acknowledged by the replica (WAIT on the grant's own connection) before the caller hears of them, and with the
 * replica paused they are undone and fail with {@link LockUnavailableException} rather than granted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ReplicaAcknowledgementTest {

    private static final Duration ACKNOWLEDGEMENT_TIMEOUT = Duration.ofMillis(400);

    private final RedisServers servers = RedisServers.create();

    private RedisNode master;

    private RedisNode replica;

    private RedisClients clients;

    private final List<LockEvent> events = new CopyOnWriteArrayList<>();

    private RedisLockService locks;

    @BeforeAll
    void startServers() {
        this.master = this.servers.start();
        this.replica = this.servers.startReplicaOf(this.master);
    }

    @AfterAll
    void stopServers() {
        this.servers.close();
    }

    @BeforeEach
    void setUp() {
        this.clients = new RedisClients(this.master);
        this.locks = this.clients.service(b -> b.replicaAcknowledgements(1, ACKNOWLEDGEMENT_TIMEOUT)
            .listener(this.events::add));
        // the replica acknowledges grants again (a previous test may have paused it, and a resumed replica can take a
        // moment, longer on Valkey and on a loaded machine, before it acknowledges within the timeout): a WAIT on a
        // fresh connection that wrote nothing proved too weak, so a probe grant must be acknowledged
        Await.until(Duration.ofSeconds(20), this::aProbeGrantIsAcknowledged, "the replica acknowledges a grant");
        this.events.clear();
    }

    private boolean aProbeGrantIsAcknowledged() {
        try {
            this.locks.tryAcquire("replica-probe").ifPresent(LockHandle::release);
            return true;
        }
        catch (LockUnavailableException notAcknowledged) {
            return false;
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        this.replica.resume();
        this.clients.close();
    }

    @Test
    void anAsyncGrantIsAcknowledgedByTheReplicaBeforeTheCallerHears() throws Exception {
        Optional<LockHandle> lock = this.locks.async().tryAcquire("async-acked", LockOptions.defaults())
            .get(10, TimeUnit.SECONDS);

        assertThat(lock).isPresent();
        // acknowledged: the replica has the lock when the future completes (a replica answers KEYS)
        assertThat(this.replica.call("KEYS", lockHash("async-acked"))).isEqualTo(lockHash("async-acked"));
        lock.get().releaseAsync().get(10, TimeUnit.SECONDS);
    }

    @Test
    void anAsyncGrantTheReplicaDoesNotAcknowledgeFailsAndIsUndone() throws Exception {
        this.replica.pause();
        long start = System.nanoTime();
        CompletableFuture<Optional<LockHandle>> call = this.locks.async()
            .tryAcquire("async-unacked", LockOptions.defaults());

        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("only 0 of the 1 replicas");
        // not completed as granted before WAIT ran out
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(ACKNOWLEDGEMENT_TIMEOUT);
        Await.until(Duration.ofSeconds(5), () -> this.master.lockField(lockHash("async-unacked"), "owner") == null,
                "the unacknowledged grant is undone");
        this.replica.resume();
        Replication.awaitCaughtUp(this.master, List.of(this.replica), Duration.ofSeconds(10));
        this.locks.async().tryAcquire("async-unacked", LockOptions.defaults()).get(10, TimeUnit.SECONDS)
            .orElseThrow().release();
    }

    @Test
    void aHandOffIsAcknowledgedByTheReplicaBeforeTheWaiterHolds() throws Exception {
        LockHandle holder = this.locks.acquire("handed");
        CompletableFuture<LockHandle> waiter = this.locks.async()
            .acquire("handed", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        assertThat(waiter).isNotDone();

        holder.release(); // hands the lock to the queued waiter

        LockHandle handed = waiter.get(10, TimeUnit.SECONDS);
        assertThat(this.events).anySatisfy(event -> assertThat(event).isInstanceOf(LockEvent.HandedOff.class));
        assertThat(this.replica.call("KEYS", lockHash("handed"))).isEqualTo(lockHash("handed"));
        assertThat(this.master.lockField(lockHash("handed"), "owner")).isEqualTo(handed.ownerToken());
        handed.release();
    }

    @Test
    void aHandOffTheReplicaDoesNotAcknowledgeIsUndoneAndTheWaiterIsNotGranted() throws Exception {
        LockHandle holder = this.locks.acquire("unacked-hand-off");
        this.replica.pause();
        CompletableFuture<LockHandle> waiter = this.locks.async()
            .acquire("unacked-hand-off", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));

        holder.release(); // the hand-off is granted in Redis, but the replica does not acknowledge it

        // the waiter's grant is undone; it waits on, and its own grant is not acknowledged either
        assertThatThrownBy(() -> waiter.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause()
            .isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("replicas required acknowledged it");
        assertThat(this.events).noneSatisfy(event -> assertThat(event).isInstanceOf(LockEvent.HandedOff.class));
        Await.until(Duration.ofSeconds(5), () -> this.master.lockField(lockHash("unacked-hand-off"), "owner") == null,
                "no grant is left in Redis");
    }

    /**
     * Renewals of 250 watched locks (three batches, pipelined): acknowledged, the leases go on; with the replica
     * paused, the master still renews them but the one WAIT after the round times out, so no deadline moves and every
     * lease is reported lost at its deadline.
     */
    @Test
    void renewalsOfManyBatchesMoveTheDeadlinesOnlyOnceTheReplicaAcknowledged() throws Exception {
        int held = 250;
        Duration lease = Duration.ofMillis(1500);
        List<LockEvent> renewalEvents = new CopyOnWriteArrayList<>();
        RedisLockService renewing = this.clients.service(b -> b.replicaAcknowledgements(1, ACKNOWLEDGEMENT_TIMEOUT)
            .watchdogLease(lease).listener(renewalEvents::add));
        List<CompletableFuture<LockHandle>> acquired = new java.util.ArrayList<>();
        for (int i = 0; i < held; i++) {
            acquired.add(renewing.async().acquire("renewed:" + i, LockOptions.defaults()));
        }
        CompletableFuture.allOf(acquired.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        long since = System.nanoTime();
        Await.until(Duration.ofSeconds(10), () -> System.nanoTime() - since > lease.toNanos()
                && renewed(renewalEvents) >= 2L * held, "two acknowledged rounds over a lease");
        assertThat(renewalEvents).noneMatch(event -> event instanceof LockEvent.LeaseLost);

        this.replica.pause();
        Await.until(Duration.ofSeconds(10), () -> renewalEvents.stream()
            .filter(event -> event instanceof LockEvent.LeaseLost).count() == held, "every lease reported lost");
        assertThat(renewalEvents).anySatisfy(event -> assertThat(event).isInstanceOfSatisfying(
                LockEvent.RenewalFailed.class, failed -> assertThat(failed.reason())
                    .hasMessageContaining("replicas required acknowledged it")));
        renewing.close();
    }

    private static long renewed(List<LockEvent> events) {
        return events.stream().filter(event -> event instanceof LockEvent.Renewed)
            .mapToLong(event -> ((LockEvent.Renewed) event).count()).sum();
    }

    /** A master with a replica gets acknowledgements by default, and the startup log says so. */
    @Test
    void byDefaultAMasterWithAReplicaIsAcknowledgedAndTheLogSaysSo() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(RedisLockService.class);
        logger.addAppender(log);
        RedisLockService byDefault;
        try {
            byDefault = this.clients.service(b -> b);
        }
        finally {
            logger.detachAppender(log);
        }
        assertThat(log.list).filteredOn(event -> event.getLevel() == Level.INFO)
            .extracting(ILoggingEvent::getFormattedMessage)
            .anySatisfy(line -> assertThat(line).contains("wait for 1 replica(s) to acknowledge them")
                .contains("on by default")
                .contains("distlock.replica-acknowledgements.replicas=0"));
        this.replica.pause();

        assertThatThrownBy(() -> byDefault.tryAcquire("by-default")).isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("only 0 of the 1 replicas");
    }

    /**
     * By default, a topology that could not be read when the service was built (here nothing listens; a slow Redis
     * whose INFO times out is the same) is not taken for one without replicas: the service runs without
     * acknowledgements, and warns that it could not tell and how to choose.
     */
    @Test
    void byDefaultATopologyThatCouldNotBeReadIsWarnedOfNotTakenForOneWithoutReplicas() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(RedisLockService.class);
        logger.addAppender(log);
        try {
            this.clients.service(this.clients.template(closedPort, Duration.ofSeconds(1)), b -> b);
        }
        finally {
            logger.detachAppender(log);
        }
        assertThat(log.list).extracting(ILoggingEvent::getFormattedMessage)
            .noneSatisfy(line -> assertThat(line).contains("no replicas found"));
        assertThat(log.list).filteredOn(event -> event.getLevel() == Level.WARN)
            .extracting(ILoggingEvent::getFormattedMessage)
            .anySatisfy(line -> assertThat(line).contains("not acknowledged by replicas")
                .contains("could not be read")
                .contains("distlock.replica-acknowledgements.replicas"));
    }

    /** Opted out, a grant no replica acknowledges is granted, and the startup log says what that means. */
    @Test
    void optedOutAGrantIsNotAcknowledgedAndTheLogSaysWhatThatMeans() {
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        Logger logger = (Logger) LoggerFactory.getLogger(RedisLockService.class);
        logger.addAppender(log);
        RedisLockService optedOut;
        try {
            optedOut = this.clients.service(b -> b.replicaAcknowledgements(0, ACKNOWLEDGEMENT_TIMEOUT));
        }
        finally {
            logger.detachAppender(log);
        }
        assertThat(log.list).filteredOn(event -> event.getLevel() == Level.INFO)
            .extracting(ILoggingEvent::getFormattedMessage)
            .anySatisfy(line -> assertThat(line).contains("not acknowledged by replicas")
                .contains("a second holder"));
        this.replica.pause();

        optedOut.tryAcquire("opted-out").orElseThrow().release();
    }

    private static String lockHash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
