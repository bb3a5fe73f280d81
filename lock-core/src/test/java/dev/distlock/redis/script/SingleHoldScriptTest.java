package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.redis.RedisClients;
import dev.distlock.test.LockFields;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The plain lock's single-hold layout (single-hold.lua): one owner with one watched hold, or a free lock's last token,
 * is a string, and every other state turns it into the hash it stands for. What the scripts answer is the same in both
 * forms (ReleaseScriptTest and HandOffScriptTest run on both); this pins the form and what a cycle runs.
 */
@RedisTest
class SingleHoldScriptTest {

    private static final String KEY = "distlock:{single}:lock";

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
    void aWatchedGrantIsOneStringAndALockCycleRunsGetAndSetOnly() {
        long first = grant("owner-a", "1", true, false);
        assertThat(this.redis.call("TYPE", KEY)).isEqualTo("string");
        assertThat(this.redis.call("GET", KEY)).isEqualTo("owner-a 1 " + first + " " + first);
        assertThat(ttl()).isBetween(1L, 10_000L);

        assertThat(release("owner-a", "1", first, true)).isEqualTo(LockScripts.FREED);
        assertThat(this.redis.call("GET", KEY)).as("what a free lock keeps: its token and run")
            .isEqualTo(first + " " + first);
        assertThat(ttl()).as("the token retention").isBetween(10_001L, 60_000L);
        long second = grant("owner-b", "7", true, false);
        assertThat(second).isEqualTo(first + 1);
        assertThat(this.redis.call("GET", KEY)).isEqualTo("owner-b 7 " + second + " " + first);
        assertThat(ttl()).isBetween(1L, 10_000L);

        this.redis.call("CONFIG", "RESETSTAT");
        assertThat(release("owner-b", "7", second, true)).isEqualTo(LockScripts.FREED);
        assertThat(grant("owner-c", "1", true, false)).isEqualTo(second + 1);
        // the release's second GET and SET are its freed mark's (see freed-mark.lua), the evidence a retried release
        // needs
        assertThat(commandsRun())
            .as("a release and the next grant: GET and SET ... PX each, and the freed mark's GET and SET")
            .containsEntry("get", 3L)
            .containsEntry("set", 3L)
            .doesNotContainKeys("hmget", "hget", "hset", "hdel", "pexpire", "pttl", "del", "time", "exists");
        assertThat(this.redis.call("GET", KEY + ":freed")).as("the freed mark: the newest release first")
            .isEqualTo("owner-b 7,owner-a 1");
    }

    @Test
    void aReentryTurnsTheStringIntoTheHashItStandsForUntilTheLockIsFreeAgain() {
        long fence = grant("owner-a", "1", true, false);
        assertThat(grant("owner-a", "2", true, false)).isEqualTo(fence);

        assertThat(this.redis.call("TYPE", KEY)).isEqualTo("hash");
        assertThat(fields()).isEqualTo(Map.of("owner", "owner-a", "holds", "2", "owner-a", "2", "1", "w", "2", "w",
                "fence", Long.toString(fence), "chain", Long.toString(fence)));
        assertThat(ttl()).as("the re-entry's own lease, never longer").isBetween(1L, 10_000L);
        assertThat(release("owner-a", "2", fence, true)).isEqualTo(LockScripts.STILL_HELD);
        assertThat(release("owner-a", "1", fence, true)).isEqualTo(LockScripts.FREED);
        assertThat(fields()).isEqualTo(Map.of("fence", Long.toString(fence), "chain", Long.toString(fence)));

        long next = grant("owner-b", "1", true, false);
        assertThat(next).as("the run goes on").isEqualTo(fence + 1);
        assertThat(this.redis.call("GET", KEY)).as("a watched grant turns the free hash back into the string")
            .isEqualTo("owner-b 1 " + next + " " + fence);
        assertThat(renew("owner-b")).isEqualTo(LockScripts.RENEWED);
    }

    @Test
    void aFixedLeaseOrADelayedReleaseGoesOnInTheHash() {
        String other = "distlock:{other}:lock";
        long held = this.scripts.acquire(other, "owner-a", new LockType.Grant("1", "10000", true, false, false), true)
            .run();
        long expiry = Long.parseLong(this.redis.call("PTTL", other));
        assertThat(this.scripts.release(other, other + ":freed", "owner-x", new LockType.Release("1", held, false, "0"),
                "distlock:{other}:released", "test", "60000", "PUBLISH", true, true).run())
            .as("a fixed lease's release meeting another owner's string").isEqualTo(LockScripts.HELD_BY_ANOTHER);
        assertThat(this.redis.call("TYPE", other)).isEqualTo("hash");
        assertThat(this.redis.lockField(other, "owner")).isEqualTo("owner-a");
        assertThat(Long.parseLong(this.redis.call("PTTL", other))).as("the expiry kept").isBetween(1L, expiry);

        long first = grant("owner-a", "1", true, false);
        assertThat(release("owner-a", "1", first, true)).isEqualTo(LockScripts.FREED);
        long fixed = grant("owner-b", "1", false, false);
        assertThat(fixed).as("a later token, in the same run").isGreaterThan(first);
        assertThat(this.redis.call("TYPE", KEY)).isEqualTo("hash");
        assertThat(fields()).containsEntry("owner", "owner-b").containsEntry("chain", Long.toString(first))
            .containsEntry("fence", Long.toString(fixed));
        assertThat(renew("owner-b")).as("a fixed lease").isEqualTo(LockScripts.NOT_RENEWED);

        String delayed = "distlock:{delayed}:lock";
        long token = this.scripts.acquire(delayed, "owner-a", new LockType.Grant("1", "10000", true, false, false),
                true).run();
        assertThat(this.scripts.release(delayed, delayed + ":freed",
                "owner-a", new LockType.Release("1", token, true, "5000"),
                "distlock:{delayed}:released", "test", "60000", "PUBLISH", true, true).run())
                    .isEqualTo(LockScripts.FREED);
        assertThat(this.redis.call("TYPE", delayed)).isEqualTo("hash");
        assertThat(this.redis.lockField(delayed, "owner")).isEqualTo("(released)");
        assertThat(this.scripts.acquire(delayed, "owner-b", new LockType.Grant("1", "10000", true, false, false),
                true).run())
            .as("held until the delay ends").isNegative();
    }

    @Test
    void aRefusedWaiterMarksTheStringOnceKeepingItsExpiry() {
        long fence = grant("owner-a", "1", true, false);
        assertThat(grant("owner-b", "1", true, true)).as("refused, waiting").isNegative();
        assertThat(grant("owner-c", "1", true, true)).as("refused, waiting").isNegative();
        assertThat(this.redis.call("GET", KEY)).isEqualTo("owner-a 1 " + fence + " " + fence + " w");
        assertThat(ttl()).isBetween(1L, 10_000L);
        assertThat(renew("owner-a")).isEqualTo(LockScripts.RENEWED);
        assertThat(ttl()).as("renewed").isGreaterThan(10_000L);

        assertThat(release("owner-a", "1", fence, true)).isEqualTo(LockScripts.FREED);
        assertThat(this.redis.call("GET", KEY)).as("the mark goes with the message").isEqualTo(fence + " " + fence);
    }

    @Test
    void aWrongGuessOfTheFormCostsACommandAndAnswersAlike() {
        long fence = grant("owner-a", "1", true, false);
        assertThat(this.scripts.renewals().renew(List.of(KEY), List.of("owner-a"), "30000", false)[0])
            .as("the hash guessed").isEqualTo(LockScripts.RENEWED);
        assertThat(this.scripts.acquire(KEY, "owner-a", new LockType.Grant("2", "10000", true, true, false), false)
            .run()).as("a re-entry guessing the hash").isEqualTo(fence);
        assertThat(this.redis.call("TYPE", KEY)).isEqualTo("hash");
        assertThat(renew("owner-a")).as("the string guessed").isEqualTo(LockScripts.RENEWED);
        assertThat(release("owner-a", "2", fence, true)).isEqualTo(LockScripts.STILL_HELD);

        long handed = this.scripts.handOff(KEY, KEY + ":freed",
                "owner-a", new LockType.Release("1", fence, true, "0"), "owner-b",
                new LockType.Grant("9", "10000", true, false, true), false, true, "60000").run();
        assertThat(handed).isEqualTo(fence + 1);
        assertThat(this.redis.call("GET", KEY)).as("handed to one watched hold: the string again")
            .isEqualTo("owner-b 9 " + handed + " " + fence);
        assertThat(this.scripts.handOff(KEY, KEY + ":freed",
                "owner-b", new LockType.Release("9", handed, true, "0"), "owner-c",
                new LockType.Grant("3", "10000", true, false, true), false, false, "60000").run())
            .as("the hash guessed").isEqualTo(handed + 1);
        assertThat(this.redis.call("GET", KEY)).isEqualTo("owner-c 3 " + (handed + 1) + " " + fence);
    }

    @Test
    void aRenewalOfAnotherOwnersOrAFreeStringLeavesItAlone() {
        long fence = grant("owner-a", "1", true, false);
        assertThat(renew("owner-b")).isEqualTo(LockScripts.NOT_HELD_BY_OWNER);
        assertThat(renew("owner")).as("a token that begins the owner's").isEqualTo(LockScripts.NOT_HELD_BY_OWNER);
        assertThat(release("owner-a", "1", fence, true)).isEqualTo(LockScripts.FREED);
        long retention = ttl();
        assertThat(renew("owner-a")).as("released").isEqualTo(LockScripts.NOT_HELD_BY_OWNER);
        assertThat(ttl()).isLessThanOrEqualTo(retention);
        assertThat(this.redis.call("TYPE", KEY)).isEqualTo("string");
    }

    private long grant(String owner, String holdId, boolean watched, boolean waiting) {
        return this.scripts.acquire(KEY, owner, new LockType.Grant(holdId, "10000", watched, false, waiting), true)
            .run();
    }

    private long release(String owner, String holdId, long fence, boolean watched) {
        return this.scripts.release(KEY, KEY + ":freed", owner, new LockType.Release(holdId, fence, watched, "0"),
                "distlock:{single}:released", "test", "60000", "PUBLISH", true, true).run();
    }

    private int renew(String owner) {
        return this.scripts.renewals().renew(List.of(KEY), List.of(owner), "30000", true)[0];
    }

    private long ttl() {
        return Long.parseLong(this.redis.call("PTTL", KEY));
    }

    /** The lock key's fields, read as to-hash.lua turns a string into the hash (lock-test-support's LockFields). */
    private Map<String, String> fields() {
        return LockFields.of(this.redis, KEY);
    }

    /** Per command, the calls Redis counted since the last CONFIG RESETSTAT (the scripts' commands included). */
    private Map<String, Long> commandsRun() {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")
                    && !line.startsWith("cmdstat_config|")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                calls.put(name, Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(','))));
            }
        }
        return calls;
    }
}
