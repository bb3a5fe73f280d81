package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

    @Test
    void aHandOffGrantsTheNextOwnerAHigherTokenAndAFreshLeaseAndSurvivesARetry() {
        long first = acquire("owner-a", "1", "2000", false);
        long handed = handOff("owner-a", "1", first, "owner-b", "1", "60000", false);

        assertThat(handed).isEqualTo(first + 1);
        assertThat(this.redis.call("HGET", HASH, "owner")).isEqualTo("owner-b");
        assertThat(this.redis.call("HGET", HASH, "holds")).isEqualTo("1");
        assertThat(this.redis.call("HEXISTS", HASH, "1")).isEqualTo("1");
        assertThat(Long.parseLong(this.redis.call("PTTL", HASH))).isGreaterThan(2000);
        assertThat(handOff("owner-a", "1", first, "owner-b", "1", "60000", false)).as("retry").isEqualTo(handed);
        assertThat(release("owner-a", "1", first)).as("the old owner's retried release")
            .isEqualTo(LockScripts.ALREADY_RELEASED);
        assertThat(release("owner-b", "1", handed)).isEqualTo(LockScripts.FREED);
        assertThat(acquire("owner-c", "1", "2000", false)).as("a later grant").isGreaterThan(handed);
    }

    @Test
    void nothingIsHandedOffThatTheOwnerNoLongerHoldsOrStillHoldsTwice() {
        long first = acquire("owner-a", "1", "60000", false);
        assertThat(acquire("owner-a", "2", "60000", false)).isEqualTo(first);
        assertThat(handOff("owner-a", "2", first, "owner-b", "1", "60000", false))
            .isEqualTo(LockScripts.OTHER_HOLDS_REMAIN);
        assertThat(handOff("owner-x", "1", first, "owner-b", "1", "60000", false))
            .isEqualTo(LockScripts.HELD_BY_ANOTHER);
        assertThat(this.redis.call("HGET", HASH, "owner")).isEqualTo("owner-a");
        this.redis.call("DEL", HASH);
        assertThat(handOff("owner-a", "1", first, "owner-b", "1", "60000", false)).isEqualTo(LockScripts.NOT_HELD);
        assertThat(this.redis.call("EXISTS", HASH)).isEqualTo("0");
    }

    @Test
    void atTheEndOfARunTheLockIsFreedWhenAWaiterElsewhereWasRefused() {
        long first = acquire("owner-a", "1", "60000", false);
        assertThat(handOff("owner-a", "1", first, "owner-b", "1", "60000", true)).as("nobody else waits")
            .isEqualTo(first + 1);
        assertThat(acquire("owner-c", "1", "60000", true)).as("refused").isNegative();
        assertThat(handOff("owner-b", "1", first + 1, "owner-d", "1", "60000", true))
            .isEqualTo(LockScripts.OTHERS_WAIT);
        assertThat(this.redis.call("HGET", HASH, "owner")).isEqualTo("owner-b");
    }

    @Test
    void aReleaseIsPublishedOnlyWhenAWaitingCallerWasRefused() {
        long quiet = acquire("owner-a", "1", "60000", false);
        assertThat(acquire("owner-b", "1", "60000", false)).as("refused, not waiting").isNegative();
        this.redis.call("CONFIG", "RESETSTAT");
        assertThat(release("owner-a", "1", quiet)).isEqualTo(LockScripts.FREED);
        assertThat(publishes()).isZero();

        long watched = acquire("owner-a", "2", "60000", false);
        assertThat(acquire("owner-b", "1", "60000", true)).as("refused, waiting").isNegative();
        assertThat(release("owner-a", "2", watched)).isEqualTo(LockScripts.FREED);
        assertThat(publishes()).isEqualTo(1);
        assertThat(this.redis.call("HEXISTS", HASH, "waiting")).as("cleared by the message").isEqualTo("0");
    }

    private long publishes() {
        for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_publish:calls=")) {
                return Long.parseLong(line.substring("cmdstat_publish:calls=".length(), line.indexOf(',')));
            }
        }
        return 0;
    }

    private long acquire(String owner, String holdId, String leaseMillis, boolean waiting) {
        return this.scripts.acquire(HASH, owner, new LockType.Grant(holdId, leaseMillis, false, false, waiting)).run();
    }

    private long handOff(String owner, String holdId, long fence, String next, String nextHoldId, String leaseMillis,
            boolean lastOfRun) {
        return this.scripts.handOff(HASH, owner, new LockType.Release(holdId, fence, false, "0"), next,
                new LockType.Grant(nextHoldId, leaseMillis, false, false, true), lastOfRun).run();
    }

    private long release(String owner, String holdId, long fence) {
        return this.scripts.release(HASH, owner, new LockType.Release(holdId, fence, false, "0"),
                "distlock:{hand}:released", "test", "60000", "PUBLISH", true).run();
    }
}
