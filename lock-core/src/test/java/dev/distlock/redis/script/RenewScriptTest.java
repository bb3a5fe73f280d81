package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.redis.RedisClients;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * renew.lua on its own: it asks whether the field named by the owner token exists, so every path that ends or hands
 * on an owner, or ends its last watched hold, must take that field away, or a renewal would extend a lock its owner no
 * longer holds or no longer asks to be renewed.
 */
@RedisTest
class RenewScriptTest {

    private static final long LONG_LEASE = TimeUnit.MINUTES.toNanos(10);

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
    void aWatchedHoldIsRenewedAndAReleasedOneIsNot() {
        String hash = "distlock:{renew1}:lock";
        grant(hash, "owner-a", "1", 10000, true);
        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.RENEWED);
        assertThat(ttl(hash)).isGreaterThan(10_000);
        assertThat(renew(hash, "owner-b")).as("another owner").isEqualTo(ScriptReplies.NOT_HELD_BY_OWNER);

        assertThat(release(hash, "owner-a", "1", true, 0)).isEqualTo(ScriptReplies.FREED);
        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_HELD_BY_OWNER);
        assertThat(ttl(hash)).as("the kept hash lives for the token retention only").isLessThanOrEqualTo(60_000);
    }

    @Test
    void onlyFixedHoldsLeftAreHeldButNeverRenewed() {
        String hash = "distlock:{renew2}:lock";
        grant(hash, "owner-a", "1", 10000, true);
        grant(hash, "owner-a", "2", 20000, false); // a re-entry with a fixed lease
        assertThat(release(hash, "owner-a", "1", true, 0)).isEqualTo(ScriptReplies.STILL_HELD);

        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_RENEWED);
        assertThat(ttl(hash)).as("the fixed lease, not the renewal's").isLessThanOrEqualTo(20_000);
    }

    @Test
    void aWatchedReentryOfAFixedLeaseIsRenewedUntilItIsReleased() {
        String hash = "distlock:{renew6}:lock";
        grant(hash, "owner-a", "1", 10000, false);
        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_RENEWED);
        grant(hash, "owner-a", "2", 10000, true);
        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.RENEWED);
        assertThat(ttl(hash)).isGreaterThan(10_000);

        assertThat(release(hash, "owner-a", "2", true, 0)).isEqualTo(ScriptReplies.STILL_HELD);
        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_RENEWED);
        assertThat(ttl(hash)).as("back to the fixed lease").isLessThanOrEqualTo(10_000);
    }

    @Test
    void aRenewalNeverShortensALongerFixedLeaseOfTheSameOwner() {
        String hash = "distlock:{renew7}:lock";
        grant(hash, "owner-a", "1", 3600000, false); // an hour
        grant(hash, "owner-a", "2", 10000, true); // a watched re-entry: the hour is kept
        assertThat(ttl(hash)).isGreaterThan(3_000_000);
        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.RENEWED);
        assertThat(ttl(hash)).as("the fixed lease's hour, not the renewal's 10 minutes").isGreaterThan(3_000_000);
    }

    @Test
    void aBatchRenewsEachOfItsLocksToTheLease() {
        List<String> hashes = List.of("distlock:{batch}:lock:1", "distlock:{batch}:lock:2", "distlock:{batch}:lock:3");
        grant(hashes.get(0), "owner-a", "1", 10000, true);
        grant(hashes.get(1), "owner-b", "1", 10000, true);
        assertThat(this.scripts.renewals().renew(hashes, List.of("owner-a", "owner-x", "owner-c"), LONG_LEASE))
            .containsExactly(ScriptReplies.RENEWED, ScriptReplies.NOT_HELD_BY_OWNER, ScriptReplies.NOT_HELD_BY_OWNER);
        assertThat(ttl(hashes.get(0))).isBetween(590_000L, 600_000L);
        assertThat(ttl(hashes.get(1))).as("another owner's: left as it was").isLessThanOrEqualTo(10_000);
        assertThat(this.redis.call("EXISTS", hashes.get(2))).isEqualTo("0");
    }

    @Test
    void aLockKeptByADelayedReleaseIsNotRenewed() {
        String hash = "distlock:{renew3}:lock";
        grant(hash, "owner-a", "1", 10000, true);
        assertThat(release(hash, "owner-a", "1", true, 3000)).isEqualTo(ScriptReplies.FREED);

        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_HELD_BY_OWNER);
        assertThat(this.redis.lockField(hash, "owner-a")).as("the owner's field is gone").isNull();
        assertThat(ttl(hash)).as("the retention, not the renewal's lease").isLessThanOrEqualTo(60_000);
    }

    @Test
    void aLockHandedOnIsRenewedForItsNewOwnerOnly() {
        String hash = "distlock:{renew4}:lock";
        long fence = grant(hash, "owner-a", "1", 10000, true);
        long handed = LockCalls.handOff(this.scripts, hash, hash + ":freed",
                "owner-a", new LockType.Release("1", fence, true, 0), "owner-b",
                new LockType.Grant("2", TimeUnit.MILLISECONDS.toNanos(10000), true, false, false), false, Duration.ofMinutes(1)).run();
        assertThat(handed).isGreaterThan(fence);

        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_HELD_BY_OWNER);
        assertThat(renew(hash, "owner-b")).isEqualTo(ScriptReplies.RENEWED);
    }

    @Test
    void aNewOwnerAfterAReleaseStartsWithItsOwnCount() {
        String hash = "distlock:{renew5}:lock";
        grant(hash, "owner-a", "1", 10000, true);
        assertThat(release(hash, "owner-a", "1", true, 0)).isEqualTo(ScriptReplies.FREED);
        grant(hash, "owner-b", "2", 10000, false);

        assertThat(renew(hash, "owner-a")).isEqualTo(ScriptReplies.NOT_HELD_BY_OWNER);
        assertThat(renew(hash, "owner-b")).as("a fixed lease").isEqualTo(ScriptReplies.NOT_RENEWED);
    }

    private long grant(String hash, String owner, String holdId, long leaseMillis, boolean watchdog) {
        long fence = LockCalls.acquire(this.scripts, hash, owner, new LockType.Grant(holdId, TimeUnit.MILLISECONDS.toNanos(leaseMillis), watchdog, false,
                false))
            .run();
        assertThat(fence).isPositive();
        return fence;
    }

    private long release(String hash, String owner, String holdId, boolean watchdog, long keepHeldMillis) {
        return LockCalls.release(this.scripts, hash, hash + ":freed",
                owner, new LockType.Release(holdId, 0, watchdog, TimeUnit.MILLISECONDS.toNanos(keepHeldMillis)),
                "distlock:{x}:released", "test", Duration.ofMinutes(1), "PUBLISH", false).run();
    }

    private int renew(String hash, String owner) {
        return this.scripts.renewals().renew(List.of(hash), List.of(owner), LONG_LEASE)[0];
    }

    private long ttl(String hash) {
        return Long.parseLong(this.redis.call("PTTL", hash));
    }
}
