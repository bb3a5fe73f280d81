package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisClients;
import dev.distlock.test.LockFields;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A call is sent as a copy of its script with the few-valued arguments (flags, a service's settings) written into the
 * text, and the copy answers as the script sent with every argument does.
 */
@RedisTest
class ScriptCopiesTest {

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
    void aGrantIsSentAsACopyThatTakesOnlyTheArgumentsThatChangeFromCallToCall() {
        this.redis.call("SCRIPT", "FLUSH");
        LockScripts scripts = new LockScripts(this.clients.template());
        ScriptCall call = scripts.acquire("distlock:{copy}:lock", "owner-a",
                new LockType.Grant("hold-1", "10000", true, false, false));
        assertThat(call.args()).as("the script's arguments, as its header declares them").hasSize(7);

        assertThat(call.run()).isPositive();

        ScriptCopies.Copy<Long> copy = copyOf(LockScripts.ACQUIRE, call.args());
        assertThat(copy.arguments(call.args())).as("a watched grant's lease is the service's watchdog lease: written")
            .containsExactly("owner-a", "hold-1");
        assertThat(copy.script().getScriptAsString()).contains("local OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, "
                + "REENTRY, RESTART_GRACE_MILLIS, WAITING = ARGV[1], ARGV[2], '10000', '1', '0', '0', '0'");
        assertThat(this.redis.call("SCRIPT", "EXISTS", copy.script().getSha1(), LockScripts.ACQUIRE.script().getSha1()))
            .as("Redis ran the copy, not the script").isEqualTo("1\n0");
        ScriptCall sent = call.asSent();
        assertThat(sent.script()).isSameAs(copy.script());
        assertThat(sent.args()).containsExactly("owner-a", "hold-1");
        assertThat(sent.asSent()).as("the copy itself has no copies").isSameAs(sent);
        assertThat(this.redis.lockField("distlock:{copy}:lock", "owner")).isEqualTo("owner-a");
        assertThat(this.redis.lockField("distlock:{copy}:lock", "owner-a")).as("a watched hold").isEqualTo("1");
    }

    @Test
    void theCopyAndTheScriptSentWithEveryArgumentAnswerAlike() {
        StringRedisTemplate template = this.clients.template();
        LockScripts scripts = new LockScripts(template);
        String hash = "distlock:{alike}:lock";
        ScriptCall first = scripts.acquire(hash, "owner-a", new LockType.Grant("1", "10000", false, false, false));
        long fence = first.run();

        // the same grants and releases, sent as the script with every argument: the hash reads the same to both
        ScriptCall other = scripts.acquire(hash, "owner-b", new LockType.Grant("1", "10000", false, false, true));
        Long refused = template.execute(other.script(), other.keys(), other.args());
        assertThat(refused).as("held by owner-a").isLessThan(-1);
        assertThat(this.redis.lockField(hash, "waiting")).as("the refusal of a waiting caller").isEqualTo("1");
        assertThat(other.run()).as("the copy's refusal").isLessThan(-1);

        ScriptCall reentry = scripts.acquire(hash, "owner-a", new LockType.Grant("2", "10000", false, true, false));
        assertThat(template.execute(reentry.script(), reentry.keys(), reentry.args())).isEqualTo(fence);
        ScriptCall release = scripts.release(hash, hash + ":freed",
                "owner-a", new LockType.Release("2", fence, false, "0"),
                "distlock:{alike}:released", "test", "60000", "PUBLISH", true);
        assertThat(template.execute(release.script(), release.keys(), release.args()))
            .isEqualTo(LockScripts.STILL_HELD);
        assertThat(scripts.release(hash, hash + ":freed", "owner-a", new LockType.Release("1", fence, false, "0"),
                "distlock:{alike}:released", "test", "60000", "PUBLISH", true).run())
                    .isEqualTo(LockScripts.FREED);
        assertThat(LockFields.of(this.redis, hash).keySet()).containsExactlyInAnyOrder("fence", "chain");
        assertThat(Long.parseLong(this.redis.call("PTTL", hash))).as("the token retention written into the copy")
            .isBetween(50_000L, 60_000L);
    }

    @Test
    void eachSetOfValuesHasOneCopyAndOddValuesGoAsArguments() {
        GuardedScript<Long> script = (GuardedScript<Long>) acquireLayout().script();
        Object[] fixed = {"owner", "hold", "1000", "0", "0", "5000", "0", "1"};
        ScriptCopies.Copy<Long> copy = script.copyFor(fixed);
        assertThat(script.copyFor(fixed.clone())).isSameAs(copy);
        assertThat(script.copyFor(new Object[] {"other", "hold-2", "2000", "0", "0", "5000", "0", "1"}))
            .as("other per-call values").isSameAs(copy);
        assertThat(script.copyFor(new Object[] {"owner", "hold", "1000", "1", "0", "5000", "0", "1"}))
            .isNotSameAs(copy);
        assertThat(script.copyFor(new Object[] {"owner", "hold", "1000", "0", "0", "5000 or 1", "0", "1"}))
            .as("not a plain word").isNull();
        assertThat(script.copies().size()).isEqualTo(2);
        for (int grace = 0; script.copies().size() < ScriptCopies.MOST_COPIES; grace++) {
            assertThat(script.copyFor(new Object[] {"owner", "hold", "1000", "0", "0", Integer.toString(grace), "0",
                    "1"}))
                .isNotNull();
        }
        assertThat(script.copyFor(new Object[] {"owner", "hold", "1000", "0", "0", "99999", "0", "1"}))
            .as("one copy too many").isNull();
        assertThat(script.copyFor(fixed)).isSameAs(copy);
    }

    /**
     * A watched grant's lease is the service's watchdog lease, one value: written into its copy. A fixed lease is the
     * caller's, any value: sent, so that leases computed per call share one copy rather than fill the copies up.
     */
    @Test
    void aLeaseIsWrittenIntoACopyOnlyForAWatchedGrant() {
        GuardedScript<Long> acquire = (GuardedScript<Long>) acquireLayout().script(); // copies of its own
        String hash = "distlock:{leases}:lock";
        List<String> keys = List.of(hash, "distlock:restart-grace");
        Object[] fixed = {"owner-a", "1", "7001", "0", "0", "0", "0"};
        ScriptCopies.Copy<Long> fixedCopy = acquire.copyFor(fixed);
        assertThat(fixedCopy.arguments(fixed)).containsExactly("owner-a", "1", "7001");
        assertThat(fixedCopy.script().getScriptAsString())
            .contains("= ARGV[1], ARGV[2], ARGV[3], '0', '0', '0', '0'");
        assertThat(acquire.copyFor(new Object[] {"owner-a", "2", "7002", "0", "0", "0", "0"}))
            .as("another fixed lease, the same copy").isSameAs(fixedCopy);
        Object[] watched = {"owner-b", "1", "9001", "1", "0", "0", "0"};
        ScriptCopies.Copy<Long> watchedCopy = acquire.copyFor(watched);
        assertThat(watchedCopy).isNotSameAs(fixedCopy);
        assertThat(watchedCopy.arguments(watched)).containsExactly("owner-b", "1");
        assertThat(acquire.copyFor(new Object[] {"owner-b", "1", "9002", "1", "0", "0", "0"}))
            .as("another watchdog lease, another copy").isNotSameAs(watchedCopy);

        StringRedisTemplate template = this.clients.template();
        long fence = template.execute(fixedCopy.script(), keys, fixedCopy.arguments(fixed));
        assertThat(fence).isPositive();
        assertThat(Long.parseLong(this.redis.call("PTTL", hash))).as("the lease the fixed grant sent")
            .isBetween(1L, 7001L);
        assertThat(new LockScripts(template).release(hash, hash + ":freed",
                "owner-a", new LockType.Release("1", fence, false, "0"),
                "distlock:{leases}:released", "test", "60000", "PUBLISH", true).run())
                    .isEqualTo(LockScripts.FREED);
        assertThat(template.execute(watchedCopy.script(), keys, watchedCopy.arguments(watched))).isEqualTo(fence + 1);
        assertThat(Long.parseLong(this.redis.call("PTTL", hash))).as("the lease written into the watched copy")
            .isBetween(7002L, 9001L);
    }

    @Test
    void aReleaseIsSentAsACopyOnlyWhenItFreesTheLockNow() {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{later}:lock";
        long fence = scripts.acquire(hash, "owner-a", new LockType.Grant("1", "10000", false, false, false))
            .run();
        ScriptCall later = scripts.release(hash, hash + ":freed",
                "owner-a", new LockType.Release("1", fence, false, "3000"),
                "distlock:{later}:released", "test", "60000", "PUBLISH", true);
        ScriptCall now = scripts.release(hash, hash + ":freed", "owner-a", new LockType.Release("1", fence, false, "0"),
                "distlock:{later}:released", "test", "60000", "PUBLISH", true);
        GuardedScript<Long> release = (GuardedScript<Long>) LockScripts.RELEASE.script();
        assertThat(release.copyFor(later.args())).as("a delay: the script with every argument").isNull();
        assertThat(release.copyFor(now.args()).arguments(now.args()))
            .containsExactly("owner-a", "1", Long.toString(fence), "distlock:{later}:released", "test");

        assertThat(later.run()).isEqualTo(LockScripts.FREED);
        assertThat(this.redis.lockField(hash, "owner")).as("kept for the delay").isEqualTo("(released)");
        assertThat(Long.parseLong(this.redis.call("PTTL", hash))).isBetween(1L, 60_000L);
    }

    /**
     * A copy the client sent before goes EVALSHA, then EVAL on NOSCRIPT (after Redis lost its scripts). When its
     * caller gave up waiting (Redis stalled past the command timeout), the EVAL must not follow: the caller has already
     * sent what undoes the call (GrantFailures), and a grant loaded and run after that undo would hold the lock for a
     * lease nobody holds. (A copy's first call goes EVAL, ahead of any undo: see ScriptReloadTest.)
     */
    @Test
    void aCallWhoseCallerGaveUpIsNotLoadedAndRunAfterNoscript() throws Exception {
        LockScripts scripts = new LockScripts(this.clients.template(this.redis.port(), Duration.ofMillis(500)));
        String hash = "distlock:{gave-up}:lock";
        scripts.acquire("distlock:{connected}:lock", "owner-z", new LockType.Grant("1", "10000", true, false, false))
            .run(); // the connection is open before the pause, and the client sent this copy before
        this.redis.call("SCRIPT", "FLUSH");
        this.redis.pause();
        try {
            CompletableFuture<Long> attempt = CompletableFuture.supplyAsync(() -> scripts
                .acquire(hash, "owner-a", new LockType.Grant("1", "10000", true, false, false)).run());
            assertThatThrownBy(() -> attempt.get(10, TimeUnit.SECONDS)).as("the caller gives up after 500 ms")
                .hasCauseInstanceOf(QueryTimeoutException.class);
        }
        finally {
            this.redis.resume();
        }
        // two calls after it on the same connection: a fallback EVAL sent on the NOSCRIPT reply would run before the
        // second one
        for (int i = 0; i < 2; i++) {
            scripts.acquire("distlock:{after}:lock", "owner-b", new LockType.Grant(Integer.toString(i), "10000", false,
                    false, false)).run();
        }
        assertThat(this.redis.lockField(hash, "owner")).as("the grant its caller gave up on").isNull();
    }

    @Test
    void aCopyBindsItsWrittenArgumentsToConstantsAndTheOthersToTheirNewPositions() {
        assertThat(ScriptLayout.binding(List.of("OWNER_TOKEN", "WATCHDOG", "HOLD_ID", "PUBLISH_COMMAND"),
                new String[] {"1", "SPUBLISH"}))
            .isEqualTo("local OWNER_TOKEN, WATCHDOG, HOLD_ID, PUBLISH_COMMAND = ARGV[1], '1', ARGV[2], 'SPUBLISH'");
        assertThat(ScriptLayout.binding(List.of("OWNER_TOKEN", "WATCHDOG"), null))
            .isEqualTo("local OWNER_TOKEN, WATCHDOG = ARGV[1], ARGV[2]");
    }

    /** acquire.lua loaded anew: its copies are its own, not those every test's calls of LockScripts.ACQUIRE add. */
    private static ScriptLayout<Long> acquireLayout() {
        return ScriptLayout.load("acquire.lua", Long.class, ScriptArgument.OWNER_TOKEN, ScriptArgument.HOLD_ID,
                ScriptArgument.LEASE_MILLIS, ScriptArgument.WATCHDOG, ScriptArgument.REENTRY,
                ScriptArgument.RESTART_GRACE_MILLIS, ScriptArgument.WAITING);
    }

    private static ScriptCopies.Copy<Long> copyOf(ScriptLayout<Long> layout, Object[] args) {
        ScriptCopies.Copy<Long> copy = ((GuardedScript<Long>) layout.script()).copyFor(args);
        assertThat(copy).isNotNull();
        return copy;
    }
}
