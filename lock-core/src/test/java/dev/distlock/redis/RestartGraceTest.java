package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockEvent;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.RestartGraceException;
import dev.distlock.reactor.ReactiveLocks;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** A Redis that restarted without its data grants nothing new until the restart grace has passed. */
@RedisTest
class RestartGraceTest {

    /**
     * Short, so that the test waits little; long enough that a new service and one refused try per lock type fit
     * in it on a loaded machine (Redis refuses while its whole-second uptime, less one, is below the grace).
     */
    private static final Duration GRACE = Duration.ofSeconds(2);

    /** A caller's wait, far shorter than a 60 s grace. */
    private static final Duration WAIT = Duration.ofSeconds(6);

    private static final Consumer<RestartGraceException> AT_LEAST_THE_WAIT = refused -> assertThat(
            refused.retryAfter()).as("the grace left").isGreaterThan(WAIT);

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
    void aRedisRestartedWithoutItsDataGrantsNothingNewUntilTheGraceHasPassed() {
        List<LockException> failures = new CopyOnWriteArrayList<>();
        RedisLockService before = this.clients.service(b -> b.restartGrace(GRACE));
        // Redis grants once its uptime less one second reaches the grace (restart-grace.lua)
        Await.until(Duration.ofSeconds(10), () -> uptimeSeconds() >= GRACE.toSeconds() + 1, "past the first grace");
        LockHandle held = before.acquire("job", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(2)));
        assertThat(held.fencingToken()).isPositive();

        this.redis.restart(); // empty: the lock held above is forgotten while its holder may still run
        // a client that never saw the old process is held back too: Redis decides from its own uptime
        RedisLockService after = this.clients.service(b -> b.restartGrace(GRACE).listener(event -> {
            if (event instanceof LockEvent.AcquireFailed failed) {
                failures.add(failed.reason());
            }
        }));
        for (LockMode mode : LockMode.values()) {
            LockOptions options = LockOptions.defaults().withMode(mode);
            assertThatThrownBy(() -> after.tryAcquire("job", mode.isSemaphore() ? options.withPermits(1) : options))
                .as(mode.name()).isInstanceOfSatisfying(RestartGraceException.class,
                        refused -> assertThat(refused.retryAfter()).isPositive().isLessThanOrEqualTo(GRACE.plusSeconds(1)));
        }
        assertThat(failures).hasSize(LockMode.values().length).allMatch(RestartGraceException.class::isInstance);
        assertThat(this.redis.call("EXISTS", "distlock:{job}:lock")).as("nothing was granted").isEqualTo("0");

        // a waiting acquisition waits through the grace, and Redis grants once its process is older than the grace
        try (LockHandle granted = after.acquire("job", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
            assertThat(uptimeSeconds()).as("granted only after the grace").isGreaterThanOrEqualTo(GRACE.toSeconds());
            assertThat(granted.fencingToken()).as("tokens keep increasing").isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aWaitThatEndsWithinTheGraceFailsWithTheGraceNotAsHeld() {
        this.redis.restart();
        RedisLockService locks = this.clients.service(b -> b.restartGrace(Duration.ofSeconds(30)));
        assertThatThrownBy(() -> locks.acquire("job", LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
            .isInstanceOf(RestartGraceException.class)
            .hasMessageContaining("restart grace");
    }

    /**
     * Issue 47 point 2: when the grace left outlasts the caller's wait, the call is refused at once, not after
     * holding its thread (or its future) for the whole wait; a wait that outlasts the grace still waits through it
     * (above).
     */
    @Test
    void aWaitShorterThanTheGraceLeftIsRefusedAtOnceInEveryStyle() {
        this.redis.restart();
        RedisLockService locks = this.clients.service(b -> b.restartGrace(Duration.ofSeconds(60)));
        LockOptions waiting = LockOptions.defaults().withWaitTime(WAIT);
        for (LockMode mode : LockMode.values()) {
            LockOptions options = mode.isSemaphore() ? waiting.withMode(mode).withPermits(2)
                    : waiting.withMode(mode);
            long start = System.nanoTime();
            assertThatThrownBy(() -> locks.acquire("job", options)).as(mode.name())
                .isInstanceOfSatisfying(RestartGraceException.class, AT_LEAST_THE_WAIT);
            assertAtOnce(start, "blocking " + mode);

            start = System.nanoTime();
            assertThatThrownBy(() -> locks.async().acquire("job", options).join()).as(mode.name())
                .isInstanceOf(CompletionException.class)
                .cause().isInstanceOfSatisfying(RestartGraceException.class, AT_LEAST_THE_WAIT);
            assertAtOnce(start, "async " + mode);
        }
        long start = System.nanoTime();
        assertThatThrownBy(() -> ReactiveLocks.of(locks).acquire("job", waiting).block())
            .isInstanceOfSatisfying(RestartGraceException.class, AT_LEAST_THE_WAIT);
        assertAtOnce(start, "reactive");
        assertThat(this.redis.call("EXISTS", "distlock:{job}:lock")).as("nothing was granted").isEqualTo("0");
    }

    /** A refusal is one or two round trips; the bound is the documented lock call timeout, far below the wait. */
    private static void assertAtOnce(long startNanos, String style) {
        Duration answered = Duration.ofNanos(System.nanoTime() - startNanos);
        assertThat(answered).as(style + " answered at once, not after its wait")
            .isLessThan(RedisLockServiceBuilder.DEFAULT_CALL_TIMEOUT);
    }

    @Test
    void onceTheGraceHasPassedGrantsNoLongerAskForTheUptime() {
        RedisLockService locks = this.clients.service(b -> b.restartGrace(Duration.ofSeconds(1)));
        Await.until(Duration.ofSeconds(10), () -> uptimeSeconds() >= 2, "past the grace"); // uptime - 1 >= 1 s
        locks.acquire("first").release(); // writes the marker
        this.redis.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 20; i++) {
            locks.acquire("key:" + i).release();
        }
        assertThat(this.redis.call("INFO", "commandstats")).contains("cmdstat_evalsha").doesNotContain("cmdstat_info");
        assertThat(this.redis.call("EXISTS", "distlock:restart-grace")).isEqualTo("1");
    }

    @Test
    void aLockCyclesGrantOnAKeptHashNeedsNoMarkerButAFreshKeyStillDoes() {
        RedisLockService locks = this.clients.service(b -> b.restartGrace(Duration.ofSeconds(1)));
        Await.until(Duration.ofSeconds(10), () -> uptimeSeconds() >= 2, "past the grace"); // uptime - 1 >= 1 s
        locks.acquire("kept").release(); // keeps the hash ('chain', 'fence') for the token retention
        this.redis.call("DEL", "distlock:restart-grace");
        this.redis.call("CONFIG", "RESETSTAT");

        locks.acquire("kept").release();
        assertThat(this.redis.call("INFO", "commandstats")).doesNotContain("cmdstat_exists")
            .doesNotContain("cmdstat_info");
        assertThat(this.redis.call("EXISTS", "distlock:restart-grace")).as("not looked for").isEqualTo("0");

        locks.acquire("fresh").release();
        assertThat(this.redis.call("EXISTS", "distlock:restart-grace")).as("a fresh key's grant asks").isEqualTo("1");
    }

    private long uptimeSeconds() {
        String info = this.redis.call("INFO", "server");
        int start = info.indexOf("uptime_in_seconds:") + "uptime_in_seconds:".length();
        return Long.parseLong(info.substring(start, info.indexOf('\r', start)).trim());
    }
}
