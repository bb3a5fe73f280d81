package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.NotLockOwnerException;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Release acts only for the owner, and a retried release never counts twice nor deletes another's lock. */
@RedisTest
class ReleaseTest {

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
    void aHolderWhoseLeaseRanOutCannotReleaseTheNextOwnersLock() {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        LockHandle stale = first.acquire("sku:1", LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)));
        LockHandle current = second.acquire("sku:1", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));

        assertThatThrownBy(stale::release).isInstanceOf(NotLockOwnerException.class)
            .hasMessageContaining("held by another owner");

        assertThat(current.isHeld()).isTrue();
        assertThat(this.redis.call("HGET", "distlock:{sku:1}:lock", "owner")).isEqualTo(current.ownerToken());
        assertThat(first.tryAcquire("sku:1")).isEmpty();
        current.release();
    }

    @Test
    void aRetriedReleaseOfAReentrantHoldDoesNotCountTwice() {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry}:lock";
        assertThat(acquire(scripts, hash, "owner-a", "1")).isPositive();
        assertThat(acquire(scripts, hash, "owner-a", "2")).isPositive();

        assertThat(release(scripts, hash, "owner-a", "2")).isEqualTo(LockScripts.STILL_HELD);
        assertThat(release(scripts, hash, "owner-a", "2")).as("retry").isEqualTo(LockScripts.ALREADY_RELEASED);
        assertThat(this.redis.call("HGET", hash, "owner")).isEqualTo("owner-a");

        assertThat(release(scripts, hash, "owner-a", "1")).isEqualTo(LockScripts.FREED);
        assertThat(release(scripts, hash, "owner-a", "1")).as("retry").isEqualTo(LockScripts.ALREADY_RELEASED);
    }

    @Test
    void aRetriedReleaseAfterAnotherOwnerTookTheLockLeavesItAlone() {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry2}:lock";
        assertThat(acquire(scripts, hash, "owner-a", "1")).isPositive();
        assertThat(release(scripts, hash, "owner-a", "1")).isEqualTo(LockScripts.FREED);
        assertThat(acquire(scripts, hash, "owner-b", "1")).isPositive();

        assertThat(release(scripts, hash, "owner-a", "1")).isEqualTo(LockScripts.ALREADY_RELEASED);
        assertThat(this.redis.call("HGET", hash, "owner")).isEqualTo("owner-b");
        assertThat(release(scripts, hash, "owner-c", "1")).isEqualTo(LockScripts.HELD_BY_ANOTHER);
        assertThat(this.redis.call("HGET", hash, "owner")).isEqualTo("owner-b");
    }

    @Test
    void aRetriedReleaseAfterOthersTookAndFreedTheLockIsRecognisedAsDone() {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry3}:lock";
        long fenceA = acquire(scripts, hash, "owner-a", "1");
        assertThat(release(scripts, hash, "owner-a", "1", fenceA)).isEqualTo(LockScripts.FREED);
        // during the retry gap (a hot key), two other owners take and free the lock
        long fenceB = acquire(scripts, hash, "owner-b", "1");
        assertThat(release(scripts, hash, "owner-b", "1", fenceB)).isEqualTo(LockScripts.FREED);
        long fenceC = acquire(scripts, hash, "owner-c", "1");

        assertThat(release(scripts, hash, "owner-a", "1", fenceA)).as("retry while C holds")
            .isEqualTo(LockScripts.ALREADY_RELEASED);
        assertThat(release(scripts, hash, "owner-c", "1", fenceC)).isEqualTo(LockScripts.FREED);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA)).as("retry once the lock is free")
            .isEqualTo(LockScripts.ALREADY_RELEASED);
    }

    @Test
    void aRetriedReleaseOfALeaseThatRanOutIsStillReportedLost() {
        LockScripts scripts = new LockScripts(this.clients.template());
        String hash = "distlock:{retry4}:lock";
        long fenceA = acquire(scripts, hash, "owner-a", "1");
        this.redis.call("DEL", hash); // A's lease runs out: the hash vanishes
        long fenceB = acquire(scripts, hash, "owner-b", "1");
        assertThat(release(scripts, hash, "owner-b", "1", fenceB)).isEqualTo(LockScripts.FREED);
        acquire(scripts, hash, "owner-c", "1");

        assertThat(fenceB).isGreaterThan(fenceA);
        assertThat(release(scripts, hash, "owner-a", "1", fenceA)).isEqualTo(LockScripts.HELD_BY_ANOTHER);
    }

    @Test
    void aReleaseWhenNobodyHoldsTheLockSaysSo() {
        LockScripts scripts = new LockScripts(this.clients.template());
        assertThat(release(scripts, "distlock:{nobody}:lock", "owner-a", "1")).isEqualTo(LockScripts.NOT_HELD);
        assertThat(this.redis.call("EXISTS", "distlock:{nobody}:lock")).isEqualTo("0");
    }

    @Test
    void theFreedLockKeepsOnlyItsLastTokenForTheRetention() {
        RedisLockService locks = this.clients.service(b -> b.tokenRetention(Duration.ofMinutes(5)));
        long token;
        try (LockHandle lock = locks.acquire("retained")) {
            token = lock.fencingToken();
        }
        assertThat(this.redis.call("HGET", "distlock:{retained}:lock", "fence")).isEqualTo(Long.toString(token));
        assertThat(this.redis.call("HGET", "distlock:{retained}:lock", "owner")).isNull();
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{retained}:lock")))
            .isBetween(1L, Duration.ofMinutes(5).toMillis());
    }

    private static long acquire(LockScripts scripts, String hash, String owner, String holdId) {
        return scripts.acquire(hash, owner, new LockType.Grant(holdId, "10000", false, false, false));
    }

    /** Releases a hold whose grant had fencing token {@code fence} (0: unknown). */
    private static long release(LockScripts scripts, String hash, String owner, String holdId, long fence) {
        return scripts.release(hash, owner, new LockType.Release(holdId, fence, false, "0"), "distlock:{x}:released",
                "test", "60000", "PUBLISH");
    }

    private static long release(LockScripts scripts, String hash, String owner, String holdId) {
        return release(scripts, hash, owner, holdId, 0);
    }

    @Test
    void releaseAfterKeepsTheLockFromEveryoneUntilTheDelayEnds() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle lock = locks.acquire("submit:42");
        lock.releaseAfter(Duration.ofMillis(400));
        assertThat(lock.isHeld()).isFalse();
        assertThat(locks.renewingCount()).isZero();
        // nobody, the same owner included, gets it before the delay ends
        assertThat(locks.tryAcquire("submit:42")).isEmpty();
        assertThat(other.tryAcquire("submit:42")).isEmpty();
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{submit:42}:lock"))).isBetween(1L, 400L);
        LockHandle next = other.acquire("submit:42", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        next.release();
        assertThatThrownBy(() -> next.releaseAfter(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("delay");
    }
}
