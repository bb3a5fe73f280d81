package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TcpProxy;

/**
 * Nothing besides Redis itself stops the watchdog from renewing: not a listener, not the log, not pub/sub
 * housekeeping.
 */
@RedisTest
class WatchdogIsolationTest {

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
    void aListenerThatThrowsFromRenewedStopsNoRenewal() {
        Duration lease = Duration.ofMillis(900);
        AtomicInteger renewedCalls = new AtomicInteger();
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(lease).listener(event -> {
            if (event instanceof LockEvent.Renewed) {
                renewedCalls.incrementAndGet();
                throw new IllegalStateException("a broken metrics listener");
            }
            if (event instanceof LockEvent.LeaseLost leaseLost) {
                lost.add(leaseLost.reason());
            }
        }));
        // two lock types: two renewal batches per round
        LockHandle exclusive = locks.acquire("report:1");
        LockHandle fair = locks.acquire("report:2", LockOptions.defaults().withMode(LockMode.FAIR));

        // every round calls the listener at least once, and three leases pass in 9 or more rounds
        Await.until(Duration.ofSeconds(30), () -> renewedCalls.get() >= 9, "nine renewal rounds");

        assertThat(ttl("distlock:{report:1}:lock")).as("the exclusive lock's lease in Redis").isPositive();
        assertThat(ttl("distlock:{report:2}:fair:lock")).as("the fair lock's lease in Redis").isPositive();
        assertThat(exclusive.isHeld()).isTrue();
        assertThat(fair.isHeld()).isTrue();
        assertThat(lost).isEmpty();
        exclusive.release();
        fair.release();
    }

    @Test
    void aListenerOrCallbackThatBlocksDelaysNoRenewal() throws Exception {
        Duration lease = Duration.ofMillis(900);
        CountDownLatch blocked = new CountDownLatch(2);
        CountDownLatch unblock = new CountDownLatch(1);
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(lease).listener(event -> {
            if (event instanceof LockEvent.Renewed) {
                block(blocked, unblock); // a metrics exporter stuck on its network, say
            }
        }));
        try {
            LockHandle kept = locks.acquire("blocking:kept");
            LockHandle gone = locks.acquire("blocking:gone");
            gone.onLeaseLost(reason -> block(blocked, unblock));
            Await.until(Duration.ofSeconds(10), () -> blocked.getCount() == 1, "the listener blocks");
            this.redis.call("DEL", "distlock:{blocking:gone}:lock");
            Await.until(Duration.ofSeconds(10), () -> !gone.isHeld(), "the deleted lock found lost");

            long start = System.nanoTime();
            while (System.nanoTime() - start < lease.multipliedBy(3).toNanos()) {
                assertThat(ttl("distlock:{blocking:kept}:lock")).as("the lease in Redis").isPositive();
                Thread.sleep(50);
            }
            assertThat(kept.isHeld()).isTrue();
        }
        finally {
            unblock.countDown();
        }
    }

    /**
     * A lost lease's warning is logged, but never on the watchdog's thread: a log that blocks (a console whose pipe is
     * full, an appender stuck on its network) while a mass loss is logged line by line must not keep the watchdog from
     * renewing the locks still held.
     */
    @Test
    void aLogThatBlocksOnALostLeaseDelaysNoRenewal() throws Exception {
        Duration lease = Duration.ofMillis(900);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        Logger serviceLog = (Logger) LoggerFactory.getLogger(RedisLockService.class);
        AppenderBase<ILoggingEvent> stuckLog = stuckLog(serviceLog, line -> line.contains("log:gone"), blocked,
                unblock);
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(lease));
        try {
            LockHandle kept = locks.acquire("log:kept");
            LockHandle gone = locks.acquire("log:gone");
            this.redis.call("DEL", "distlock:{log:gone}:lock");
            Await.until(Duration.ofSeconds(10), () -> blocked.getCount() == 0, "the lost lease's warning blocks");
            assertThat(gone.isHeld()).isFalse();

            long start = System.nanoTime();
            while (System.nanoTime() - start < lease.multipliedBy(3).toNanos()) {
                assertThat(ttl("distlock:{log:kept}:lock")).as("the lease in Redis").isPositive();
                Thread.sleep(50);
            }
            assertThat(kept.isHeld()).isTrue();
        }
        finally {
            unblock.countDown();
            serviceLog.detachAppender(stuckLog);
        }
    }

    /**
     * A renewal batch that Redis refuses (here an ACL that no longer lets the service touch a fair lock's key) is
     * retried with a warning; a log that blocks on that warning must not stop the watchdog renewing the other locks.
     */
    @Test
    void aLogThatBlocksOnAFailedRenewalDelaysNoOtherRenewal() throws Exception {
        Duration lease = Duration.ofMillis(900);
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch unblock = new CountDownLatch(1);
        Logger watchdogLog = (Logger) LoggerFactory.getLogger(LeaseWatchdog.class);
        AppenderBase<ILoggingEvent> stuckLog = stuckLog(watchdogLog, line -> line.startsWith("Could not renew"),
                blocked, unblock);
        this.redis.call(("ACL SETUSER isolated reset on >isolated-secret " + AccessCheck.requiredAcl("distlock"))
            .split(" "));
        RedisLockService locks = this.clients.service(this.clients.template("isolated", "isolated-secret"),
                b -> b.watchdogLease(lease));
        try {
            LockHandle kept = locks.acquire("refused:kept");
            locks.acquire("refused:fair", LockOptions.defaults().withMode(LockMode.FAIR));
            // the fair lock's key out of the user's reach: Redis refuses its renewal batch (the fair type's own)
            this.redis.call("ACL", "SETUSER", "isolated", "resetkeys", "~distlock:{refused:kept}*",
                    "~distlock:client:*");
            Await.until(Duration.ofSeconds(10), () -> blocked.getCount() == 0, "the retry's warning blocks");

            long start = System.nanoTime();
            while (System.nanoTime() - start < lease.multipliedBy(3).toNanos()) {
                assertThat(ttl("distlock:{refused:kept}:lock")).as("the lease in Redis").isPositive();
                Thread.sleep(50);
            }
            assertThat(kept.isHeld()).isTrue();
        }
        finally {
            unblock.countDown();
            watchdogLog.detachAppender(stuckLog);
            locks.close();
        }
    }

    /** An appender on {@code log} that blocks on each WARN line {@code stuckOn} matches, until {@code unblock}. */
    private static AppenderBase<ILoggingEvent> stuckLog(Logger log, Predicate<String> stuckOn, CountDownLatch blocked,
            CountDownLatch unblock) {
        AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                if (event.getLevel() == Level.WARN && stuckOn.test(event.getFormattedMessage())) {
                    block(blocked, unblock);
                }
            }
        };
        appender.start();
        log.addAppender(appender);
        return appender;
    }

    private static void block(CountDownLatch blocked, CountDownLatch unblock) {
        blocked.countDown();
        try {
            unblock.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The idle-subscription sweep unsubscribes a channel nobody waited on for the linger (10 s by default, 1 s here: a
     * sweep every linger finds it on the second sweep, two lingers after start). Here the pub/sub connection is
     * stalled, so its UNSUBSCRIBE hangs for the whole command timeout, longer than the lease; the lease must be renewed
     * all along.
     */
    private static final Duration LINGER = Duration.ofSeconds(1);

    @Test
    void renewalGoesOnWhileTheSubscriptionConnectionIsStalled() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(this.redis.port())) {
            Duration lease = Duration.ofMillis(1500);
            // the UNSUBSCRIBE's hang: a second longer than the lease, so a renewal that waited for it would come late
            Duration commandTimeout = Duration.ofMillis(2500);
            List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
            long start = System.nanoTime();
            RedisLockService locks = this.clients.service(this.clients.template(proxy.port(), commandTimeout),
                    b -> {
                        b.subscriptionLinger = LINGER;
                        return b.watchdogLease(lease).listener(event -> {
                            if (event instanceof LockEvent.LeaseLost leaseLost) {
                                lost.add(leaseLost.reason());
                            }
                        });
                    });
            LockHandle kept = locks.acquire("kept");
            assertThat(proxy.connectionCount()).as("the command connection").isEqualTo(1);
            LockHandle busy = this.clients.service().acquire("busy");
            assertThatThrownBy(() -> locks.acquire("busy", LockOptions.defaults().withWaitTime(Duration.ofMillis(50))))
                .isInstanceOf(LockTimeoutException.class); // subscribed to busy's channel, idle from now on
            assertThat(proxy.connectionCount()).as("the command and the pub/sub connection").isEqualTo(2);
            proxy.blackhole(1, true);

            // past the sweep that finds the channel idle, and its stalled UNSUBSCRIBE's timeout, with a margin
            long end = start + LINGER.multipliedBy(2).plus(commandTimeout).plusSeconds(2).toNanos();
            while (System.nanoTime() - end < 0) {
                assertThat(lost).isEmpty();
                assertThat(ttl("distlock:{kept}:lock")).as("the lease in Redis").isPositive();
                Thread.sleep(100);
            }
            assertThat(kept.isHeld()).isTrue();
            proxy.blackhole(1, false);
            kept.release();
            busy.release();
        }
    }

    private long ttl(String key) {
        return Long.parseLong(this.redis.call("PTTL", key));
    }
}
