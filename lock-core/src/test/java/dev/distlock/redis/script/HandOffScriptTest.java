package dev.distlock.redis.script;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.distlock.redis.RedisClients;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * handoff.lua on its own, and release.lua's message only to refused waiters: a hand-off raises the fencing token by
 * one, resets the lease, survives a retry, and never hands off what the releasing owner no longer holds.
 */
@RedisTest
class HandOffScriptTest {

    private static final String HASH = "distlock:{hand}:lock";

    private RedisNode redis;

    private RedisClients clients;

    private LockScripts scripts;

    /** Whether the grants are the watchdog's or fixed leases. */
    private boolean watched;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.scripts = new LockScripts(this.clients.template());
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aHandOffGrantsTheNextOwnerAHigherTokenAndAFreshLeaseAndSurvivesARetry(boolean watched) {
        this.watched = watched;
        long first = acquire("owner-a", "1", 2000, false);
        long handed = handOff("owner-a", "1", first, "owner-b", "1", 60000, false);

        assertThat(handed).isEqualTo(first + 1);
        assertThat(this.redis.lockField(HASH, "owner")).isEqualTo("owner-b");
        assertThat(this.redis.lockField(HASH, "holds")).isEqualTo("1");
        assertThat(this.redis.lockField(HASH, "1")).isNotNull();
        assertThat(Long.parseLong(this.redis.call("PTTL", HASH))).isGreaterThan(2000);
        assertThat(handOff("owner-a", "1", first, "owner-b", "1", 60000, false)).as("retry").isEqualTo(handed);
        assertThat(release("owner-a", "1", first)).as("the old owner's retried release")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(release("owner-b", "1", handed)).isEqualTo(ScriptReplies.FREED);
        assertThat(acquire("owner-c", "1", 2000, false)).as("a later grant").isGreaterThan(handed);
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void nothingIsHandedOffThatTheOwnerNoLongerHoldsOrStillHoldsTwice(boolean watched) {
        this.watched = watched;
        long first = acquire("owner-a", "1", 60000, false);
        assertThat(acquire("owner-a", "2", 60000, false)).isEqualTo(first);
        assertThat(handOff("owner-a", "2", first, "owner-b", "1", 60000, false))
            .isEqualTo(ScriptReplies.OTHER_HOLDS_REMAIN);
        assertThat(handOff("owner-x", "1", first, "owner-b", "1", 60000, false))
            .isEqualTo(ScriptReplies.HELD_BY_ANOTHER);
        assertThat(this.redis.lockField(HASH, "owner")).isEqualTo("owner-a");
        this.redis.call("DEL", HASH);
        assertThat(handOff("owner-a", "1", first, "owner-b", "1", 60000, false)).isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(this.redis.call("EXISTS", HASH)).isEqualTo("0");
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void atTheEndOfARunTheLockIsFreedWhenAWaiterElsewhereWasRefused(boolean watched) {
        this.watched = watched;
        long first = acquire("owner-a", "1", 60000, false);
        assertThat(handOff("owner-a", "1", first, "owner-b", "1", 60000, true)).as("nobody else waits")
            .isEqualTo(first + 1);
        assertThat(acquire("owner-c", "1", 60000, true)).as("refused").isNegative();
        assertThat(handOff("owner-b", "1", first + 1, "owner-d", "1", 60000, true))
            .isEqualTo(ScriptReplies.OTHERS_WAIT);
        assertThat(this.redis.lockField(HASH, "owner")).isEqualTo("owner-b");
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aReleaseIsPublishedOnlyWhenAWaitingCallerWasRefused(boolean watched) {
        this.watched = watched;
        long quiet = acquire("owner-a", "1", 60000, false);
        assertThat(acquire("owner-b", "1", 60000, false)).as("refused, not waiting").isNegative();
        this.redis.call("CONFIG", "RESETSTAT");
        assertThat(release("owner-a", "1", quiet)).isEqualTo(ScriptReplies.FREED);
        assertThat(publishes()).isZero();

        long second = acquire("owner-a", "2", 60000, false);
        assertThat(acquire("owner-b", "1", 60000, true)).as("refused, waiting").isNegative();
        assertThat(release("owner-a", "2", second)).isEqualTo(ScriptReplies.FREED);
        assertThat(publishes()).isEqualTo(1);
        assertThat(this.redis.lockField(HASH, "waiting")).as("cleared by the message").isNull();
    }

    private long publishes() {
        for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_publish:calls=")) {
                return Long.parseLong(line.substring("cmdstat_publish:calls=".length(), line.indexOf(',')));
            }
        }
        return 0;
    }

    private long acquire(String owner, String holdId, long leaseMillis, boolean waiting) {
        return LockCalls.acquire(this.scripts, HASH, owner, new LockType.Grant(holdId, TimeUnit.MILLISECONDS.toNanos(leaseMillis), this.watched, false,
                waiting))
            .run();
    }

    private long handOff(String owner, String holdId, long fence, String next, String nextHoldId, long leaseMillis,
            boolean lastOfRun) {
        return LockCalls.handOff(this.scripts, HASH, HASH + ":freed",
                owner, new LockType.Release(holdId, fence, this.watched, 0), next,
                new LockType.Grant(nextHoldId, TimeUnit.MILLISECONDS.toNanos(leaseMillis), this.watched, false, true), lastOfRun, Duration.ofMinutes(1)).run();
    }

    private long release(String owner, String holdId, long fence) {
        return LockCalls.release(this.scripts, HASH, HASH + ":freed",
                owner, new LockType.Release(holdId, fence, this.watched, 0),
                "distlock:{hand}:released", "test", Duration.ofMinutes(1), "PUBLISH", true).run();
    }
}
