package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * {@link RetriedReadReleaseTest} for the locks whose key is the lease (exclusive, write, fair; release.lua and
 * fair-release.lua): the outer hold has a short fixed lease, the re-entry a long one (or the watchdog's). The first try
 * of the re-entry's release ends that hold and brings the lock key's expiry back to the outer hold's lease (see
 * keepLongestLease in end-hold.lua); its reply is delayed past the command timeout, and the retry comes after the
 * outer lease ran out and took the key along. The re-entry was released with its own lease far from over: the release
 * must report success, not a lost lease; the outer hold's release, after its lease ran out, still reports the loss
 * (the explorer's soak of 2026-11-28 found the exclusive and write cases).
 * <p>
 * Timeline, with a command timeout of 500 ms and replies of the first 300 ms held back 800 ms: the first try runs at
 * once and times out at 500 ms; the retry goes out at 550 ms and gets its reply behind the first one's, at 800 ms.
 * Or, with the connection stalled for 650 ms, both tries run at 650 ms, after the outer hold's lease ran out.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetriedReentrantReleaseTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    /** Ends before the retry runs (550 ms after the first try at the earliest). */
    private static final Duration SHORT_LEASE = Duration.ofMillis(400);

    private RedisClients clients;

    private FaultProxy proxy;

    private final List<LockEvent> reported = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
        this.proxy = FaultProxy.start(redis.port());
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
        this.proxy.close();
    }

    @ParameterizedTest(name = "{0}, re-entry renewed by the watchdog {1}, async {2}, stalled {3}")
    @CsvSource({ "EXCLUSIVE, false, false, false", "EXCLUSIVE, false, true, false", "EXCLUSIVE, true, false, false",
            "EXCLUSIVE, true, true, false", "EXCLUSIVE, false, false, true", "EXCLUSIVE, true, true, true",
            "WRITE, false, false, false", "WRITE, true, true, false", "WRITE, true, false, true",
            "FAIR, false, false, false", "FAIR, true, true, false", "FAIR, true, false, true" })
    void aRetriedReleaseOfAReentryIsNotReportedLostWhenTheOuterLeaseEndsBeforeTheRetry(LockMode mode,
            boolean watchdog, boolean async, boolean stalled) throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.proxy.port(), COMMAND_TIMEOUT),
                b -> b.listener((LockEvent event) -> this.reported.add(event)));
        LockOptions shortLease = LockOptions.defaults().withMode(mode).withLeaseTime(SHORT_LEASE);
        locks.acquire("warm-up", shortLease).release(); // Redis knows the scripts: no NOSCRIPT reply to delay
        Object owner = new Object();
        LockHandle outer = locks.acquire("report:1", shortLease.withOwner(owner));
        LockOptions reentry = LockOptions.defaults().withMode(mode).withOwner(owner);
        LockHandle inner = locks.acquire("report:1",
                watchdog ? reentry : reentry.withLeaseTime(Duration.ofSeconds(60)));
        assertThat(outer.fencingToken()).isEqualTo(inner.fencingToken());

        if (stalled) {
            this.proxy.stall(Duration.ofMillis(650));
        }
        else {
            this.proxy.delayReplies(Duration.ofMillis(300), Duration.ofMillis(800));
        }
        long started = System.nanoTime();
        Throwable failure = null;
        try {
            if (async) {
                inner.releaseAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            else {
                inner.release();
            }
        }
        catch (ExecutionException ex) {
            failure = ex.getCause();
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("retried: the first try timed out")
            .isGreaterThan(COMMAND_TIMEOUT);
        assertThat(failure).as("the re-entry's release, whose first try ended it with its lease far from over")
            .isNull();
        assertThat(this.reported).noneMatch(LockEvent.ReleaseFailed.class::isInstance);

        assertThatThrownBy(outer::release).as("the outer hold, released after its lease ran out")
            .isInstanceOf(LeaseLostException.class);
    }
}
