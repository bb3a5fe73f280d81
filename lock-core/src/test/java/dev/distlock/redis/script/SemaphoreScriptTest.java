package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockOptions;
import dev.distlock.redis.RedisClients;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The semaphore's scripts on their own: a retried grant or release never counts permits twice, a holder whose lease
 * ran out gives its permits back, a limit change never lets the count pass the limit a grant names, and the count never
 * goes below zero.
 */
@RedisTest
class SemaphoreScriptTest {

    private static final String PERMITS = "distlock:{sem}:sem:permits";

    private static final String LEASES = "distlock:{sem}:sem:leases";

    private RedisNode redis;

    private RedisClients clients;

    private SemaphoreLock base;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        StringRedisTemplate template = this.clients.template();
        this.base = new SemaphoreLock(new LockType.Context(new LockKeys("distlock"), new LockScripts(template), "test",
                Duration.ofMillis(60000), Duration.ofMillis(5000), new ShardedPubSub(template, "probe")), false);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void aRetriedGrantCountsOnceAndARetriedReleaseGivesBackOnce() {
        long first = acquire("a", "1", 3, 2, 60000);
        assertThat(first).isPositive();
        assertThat(acquire("a", "1", 3, 2, 60000)).as("the same call again").isEqualTo(first);
        assertThat(count()).isEqualTo("2");
        assertThat(acquire("b", "1", 3, 1, 60000)).as("the third permit").isGreaterThan(first);
        assertThat(acquire("c", "1", 3, 1, 60000)).as("over the limit").isNegative();
        assertThat(count()).isEqualTo("3");

        assertThat(release("a", "1")).isEqualTo(ScriptReplies.FREED);
        assertThat(release("a", "1")).as("the release again").isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(count()).as("a's two permits came back once").isEqualTo("1");
        assertThat(release("b", "1")).isEqualTo(ScriptReplies.FREED);
        assertThat(release("b", "1")).isEqualTo(ScriptReplies.ALREADY_RELEASED);
        assertThat(this.redis.call("EXISTS", PERMITS, LEASES)).as("nothing left to count").isEqualTo("0");
        assertThat(acquire("c", "1", 3, 3, 60000)).as("all three free").isPositive();
    }

    @Test
    void aGrantRetriedUnderANewHoldIdAddsAHoldButNoPermits() {
        long first = acquire("a", "1", 2, 1, 60000);
        assertThat(acquire("a", "2", 2, 1, 60000)).isEqualTo(first);
        assertThat(count()).isEqualTo("1");
        assertThat(release("a", "1")).as("the undone first try").isEqualTo(ScriptReplies.STILL_HELD);
        assertThat(count()).isEqualTo("1");
        assertThat(release("a", "2")).isEqualTo(ScriptReplies.FREED);
        assertThat(this.redis.call("EXISTS", PERMITS)).isEqualTo("0");
    }

    @Test
    void aHolderWhoseLeaseRanOutGivesItsPermitsBackAndItsLateReleaseChangesNothing() throws Exception {
        acquire("a", "1", 2, 2, 100);
        assertThat(acquire("b", "1", 2, 1, 60000)).isNegative();
        long reply = -1;
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (reply < 0 && System.nanoTime() < deadline) {
            reply = acquire("b", "1", 2, 1, 60000);
            Thread.sleep(10);
        }
        assertThat(reply).as("granted once a's lease ended").isPositive();
        assertThat(acquire("c", "1", 2, 1, 60000)).isPositive();
        assertThat(release("a", "1")).as("a's late release").isEqualTo(ScriptReplies.NOT_HELD);
        assertThat(count()).as("never below the holders' permits").isEqualTo("2");
    }

    @Test
    void aGrantRetriedAfterItsOwnLeaseRanOutCountsItsPermitsOnce() {
        assertThat(acquire("b", "1", 5, 1, 60000)).isPositive(); // keeps the semaphore's keys
        assertThat(acquire("a", "1", 5, 2, 100)).isPositive();
        Await.until(Duration.ofSeconds(5), () -> "0".equals(this.redis.call("EXISTS", "distlock:{sem}:sem:holder:a")),
                "a's lease ran out (its hash expires with it)");
        // within the limit even with the lapsed permits counted: nothing else would drop them first
        assertThat(acquire("a", "1", 5, 2, 60000)).as("the late retry: a new grant").isPositive();
        assertThat(count()).as("a's lapsed permits went before it was counted anew").isEqualTo("3");
        assertThat(acquire("c", "1", 5, 2, 60000)).as("the last two permits").isPositive();
    }

    @Test
    void aLowerLimitAdmitsNobodyUntilTheCountIsWithinIt() {
        for (String holder : List.of("a", "b", "c", "d")) {
            assertThat(acquire(holder, "1", 4, 1, 60000)).isPositive();
        }
        assertThat(acquire("e", "1", 2, 1, 60000)).as("limit lowered to 2 while 4 are held").isNegative();
        release("a", "1");
        release("b", "1");
        assertThat(acquire("e", "1", 2, 1, 60000)).as("2 held of a new limit of 2").isNegative();
        release("c", "1");
        assertThat(acquire("e", "1", 2, 1, 60000)).isPositive();
        assertThat(count()).isEqualTo("2");
        assertThat(acquire("f", "1", 4, 2, 60000)).as("a caller still on the old limit").isPositive();
        assertThat(acquire("g", "1", 4, 1, 60000)).isNegative();
        assertThat(count()).isEqualTo("4");
    }

    private long acquire(String token, String holdId, int limit, int permits, long leaseMillis) {
        LockType type = this.base.forOptions(LockOptions.defaults().withPermits(limit, permits));
        return type.acquire(target(token), new LockType.Grant(holdId, TimeUnit.MILLISECONDS.toNanos(leaseMillis), false, false, false));
    }

    private long release(String token, String holdId) {
        return this.base.release(target(token), new LockType.Release(holdId, 0, false, 0));
    }

    private String count() {
        return this.redis.lockField(PERMITS, "count");
    }

    private LockTarget target(String token) {
        return new LockTarget() {
            @Override
            public String key() {
                return "sem";
            }

            @Override
            public String ownerToken() {
                return token;
            }

            @Override
            public String releaseChannel() {
                return "distlock:{sem}:sem:released";
            }
        };
    }
}
