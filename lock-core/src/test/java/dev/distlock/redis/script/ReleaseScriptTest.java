package dev.distlock.redis.script;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisClients;
import dev.distlock.test.LockFields;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The release scripts on their own: a retried call never counts twice and never mistakes a done release for a loss. */
@RedisTest
class ReleaseScriptTest {

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

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aRetriedReleaseOfAReentrantHoldDoesNotCountTwice(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry}:lock";
        long fence = acquire(scripts, hash, "owner-a", "1", watched);
        assertThat(acquire(scripts, hash, "owner-a", "2", watched)).isEqualTo(fence);

        assertThat(release(scripts, hash, "owner-a", "2", fence, watched)).isEqualTo(ScriptReplies.STILL_HELD);
        assertThat(release(scripts, hash, "owner-a", "2", fence, watched)).as("retry")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(this.redis.lockField(hash, "owner")).isEqualTo("owner-a");

        assertThat(release(scripts, hash, "owner-a", "1", fence, watched)).isEqualTo(ScriptReplies.FREED);
        assertThat(release(scripts, hash, "owner-a", "1", fence, watched)).as("retry")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
    }

    /**
     * The owner's last release writes no mark of its own: the hash keeps 'fence' and 'chain', and with no owner they
     * say that the run's last grant was released too. Tokens outside the run still read as not held.
     */
    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aFreedLockKeepsItsRunAndARetryOfItsLastGrantIsRecognisedByIt(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry5}:lock";
        long fenceA = acquire(scripts, hash, "owner-a", "1", watched);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).isEqualTo(ScriptReplies.FREED);
        assertThat(LockFields.of(this.redis, hash).keySet()).as("what a free lock keeps")
            .containsExactlyInAnyOrder("fence", "chain");

        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).as("retry")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(release(scripts, hash, "owner-z", "1", fenceA + 1, watched)).as("a later token, never granted here")
            .isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(release(scripts, hash, "owner-y", "1", fenceA - 1, watched)).as("an earlier token, before the run")
            .isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(release(scripts, hash, "owner-x", "1", watched)).as("no token").isEqualTo(ScriptReplies.NOT_HELD);
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aRetriedReleaseAfterAnotherOwnerTookTheLockLeavesItAlone(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry2}:lock";
        long fenceA = acquire(scripts, hash, "owner-a", "1", watched);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).isEqualTo(ScriptReplies.FREED);
        assertThat(acquire(scripts, hash, "owner-b", "1", watched)).isPositive();

        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(this.redis.lockField(hash, "owner")).isEqualTo("owner-b");
        assertThat(release(scripts, hash, "owner-c", "1", watched)).isEqualTo(ScriptReplies.HELD_BY_ANOTHER);
        assertThat(this.redis.lockField(hash, "owner")).isEqualTo("owner-b");
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aRetriedReleaseAfterOthersTookAndFreedTheLockIsRecognisedAsDone(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry3}:lock";
        long fenceA = acquire(scripts, hash, "owner-a", "1", watched);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).isEqualTo(ScriptReplies.FREED);
        // during the retry gap (a hot key), two other owners take and free the lock
        long fenceB = acquire(scripts, hash, "owner-b", "1", watched);
        assertThat(release(scripts, hash, "owner-b", "1", fenceB, watched)).isEqualTo(ScriptReplies.FREED);
        long fenceC = acquire(scripts, hash, "owner-c", "1", watched);

        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).as("retry while C holds")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(release(scripts, hash, "owner-c", "1", fenceC, watched)).isEqualTo(ScriptReplies.FREED);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).as("retry once the lock is free")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aRetriedReleaseOfALeaseThatRanOutIsStillReportedLost(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry4}:lock";
        long fenceA = acquire(scripts, hash, "owner-a", "1", watched);
        this.redis.call("DEL", hash); // A's lease runs out: the hash vanishes
        long fenceB = acquire(scripts, hash, "owner-b", "1", watched);
        assertThat(release(scripts, hash, "owner-b", "1", fenceB, watched)).isEqualTo(ScriptReplies.FREED);
        acquire(scripts, hash, "owner-c", "1", watched);

        assertThat(fenceB).isGreaterThan(fenceA);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA, watched)).isEqualTo(ScriptReplies.HELD_BY_ANOTHER);
    }

    /**
     * The freed mark (freed-mark.lua) names the 8 newest acquisitions whose release ended a hold, newest first: a
     * retry whose only evidence is the mark (the lock's key, and the run of grants in it, vanished after each release)
     * is recognised while 7 or fewer later releases followed it, and reports its lease lost (a false loss report,
     * never a silent one) once 8 did.
     */
    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void theFreedMarkKeepsTheEightNewestReleases(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{marks}:lock";
        long[] fences = new long[10];
        for (int i = 0; i < fences.length; i++) {
            this.redis.call("DEL", hash); // the lease of a grant in between lapsed: no run of grants to go by
            fences[i] = acquire(scripts, hash, "owner-" + i, "1", watched);
            assertThat(release(scripts, hash, "owner-" + i, "1", fences[i], watched)).isEqualTo(ScriptReplies.FREED);
        }
        this.redis.call("DEL", hash);
        assertThat(this.redis.call("GET", hash + ":freed")).as("the newest first")
            .isEqualTo("owner-9 1,owner-8 1,owner-7 1,owner-6 1,owner-5 1,owner-4 1,owner-3 1,owner-2 1");
        assertThat(Long.parseLong(this.redis.call("PTTL", hash + ":freed"))).as("the token retention")
            .isBetween(50_000L, 60_000L);

        for (int i = 2; i < fences.length; i++) {
            assertThat(release(scripts, hash, "owner-" + i, "1", fences[i], watched)).as("retry of owner-" + i)
                .isEqualTo(ScriptReplies.ALREADY_RELEASED);
        }
        assertThat(release(scripts, hash, "owner-1", "1", fences[1], watched)).as("pushed out by 8 later releases")
            .isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(release(scripts, hash, "owner-9", "2", fences[9], watched)).as("another hold of a named owner")
            .isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(this.redis.call("GET", hash + ":freed")).as("retries write nothing")
            .startsWith("owner-9 1,owner-8 1,");
    }

    @ParameterizedTest(name = "watched: {0}") // renewed by the watchdog, or a fixed lease
    @ValueSource(booleans = {false, true})
    void aReleaseWhenNobodyHoldsTheLockSaysSo(boolean watched) {
        LockScripts scripts = new LockScripts(this.clients.template());
        assertThat(release(scripts, "distlock:{nobody}:lock", "owner-a", "1", watched)).isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(this.redis.call("EXISTS", "distlock:{nobody}:lock")).isEqualTo("0");
    }

    @Test
    void aRetriedReadReleaseDoesNotCountTwice() {
        StringRedisTemplate template = this.clients.template();
        ReadLock type = new ReadLock(new LockType.Context(new LockKeys("distlock"), new LockScripts(template), "test",
                Duration.ofMillis(60000), Duration.ofMillis(1000), new ShardedPubSub(template, "distlock:{probe}:released")));
        LockTarget hold = new Target("retry", "owner-a", type.releaseChannel("retry"));
        assertThat(type.acquire(hold, new LockType.Grant("1", TimeUnit.MILLISECONDS.toNanos(10000), false, false, false))).isPositive();
        assertThat(type.acquire(hold, new LockType.Grant("2", TimeUnit.MILLISECONDS.toNanos(10000), false, false, false))).isPositive();

        assertThat(type.release(hold, new LockType.Release("2", 1, false, 0))).isEqualTo(ScriptReplies.STILL_HELD);
        assertThat(type.release(hold, new LockType.Release("2", 1, false, 0))).as("retry").isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(this.redis.call("ZCARD", "distlock:{retry}:rw:readers")).isEqualTo("1");
        assertThat(type.release(hold, new LockType.Release("1", 1, false, 0))).isEqualTo(ScriptReplies.FREED);
        assertThat(type.release(hold, new LockType.Release("1", 1, false, 0))).as("retry").isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(this.redis.call("ZCARD", "distlock:{retry}:rw:readers")).isEqualTo("0");
    }

    /** fair-release.lua writes no mark of its own either: a retry of the run's last grant is known by 'fence'. */
    @Test
    void aRetriedFairReleaseOfTheLastGrantIsRecognisedByItsRun() {
        StringRedisTemplate template = this.clients.template();
        FairLock type = new FairLock(new LockType.Context(new LockKeys("distlock"), new LockScripts(template), "test",
                Duration.ofMillis(60000), Duration.ofMillis(1000), new ShardedPubSub(template, "distlock:{probe}:released")));
        LockTarget hold = new Target("fair-retry", "owner-a", type.releaseChannel("fair-retry"));
        long fence = type.acquire(hold, new LockType.Grant("1", TimeUnit.MILLISECONDS.toNanos(10000), false, false, false));
        assertThat(fence).isPositive();

        assertThat(type.release(hold, new LockType.Release("1", fence, false, 0))).isEqualTo(ScriptReplies.FREED);
        assertThat(this.redis.call("HKEYS", "distlock:{fair-retry}:fair:lock").split("\\n")).as("no mark")
            .containsExactlyInAnyOrder("fence", "chain");
        assertThat(type.release(hold, new LockType.Release("1", fence, false, 0))).as("retry")
            .isEqualTo(ScriptReplies.ALREADY_RELEASED);
        LockTarget stranger = new Target("fair-retry", "owner-z", type.releaseChannel("fair-retry"));
        assertThat(type.release(stranger, new LockType.Release("1", fence + 1, false, 0)))
            .as("a token never granted here").isEqualTo(ScriptReplies.NOT_HELD);
    }

    /** A grant the watchdog renews ({@code watched}), or one with a fixed lease. */
    private static long acquire(LockScripts scripts, String hash, String owner, String holdId, boolean watched) {
        return LockCalls.acquire(scripts, hash, owner, new LockType.Grant(holdId, TimeUnit.MILLISECONDS.toNanos(10000), watched, false, false)).run();
    }

    /** Releases a hold whose grant had fencing token {@code fence} (0: unknown). */
    private static long release(LockScripts scripts, String hash, String owner, String holdId, long fence,
            boolean watched) {
        return LockCalls.release(scripts, hash, hash + ":freed",
                owner, new LockType.Release(holdId, fence, watched, 0), "distlock:{x}:released",
                "test", Duration.ofMinutes(1), "PUBLISH", false).run();
    }

    private static long release(LockScripts scripts, String hash, String owner, String holdId, boolean watched) {
        return release(scripts, hash, owner, holdId, 0, watched);
    }

    private record Target(String key, String ownerToken, String releaseChannel) implements LockTarget {
    }
}
