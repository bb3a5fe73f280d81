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
        assertThat(this.redis.lockField("distlock:{sku:1}:lock", "owner")).isEqualTo(current.ownerToken());
        assertThat(first.tryAcquire("sku:1")).isEmpty();
        current.release();
    }

    @Test
    void theFreedLockKeepsOnlyItsLastTokenForTheRetention() {
        RedisLockService locks = this.clients.service(b -> b.tokenRetention(Duration.ofMinutes(5)));
        long token;
        try (LockHandle lock = locks.acquire("retained")) {
            token = lock.fencingToken();
        }
        assertThat(this.redis.lockField("distlock:{retained}:lock", "fence")).isEqualTo(Long.toString(token));
        assertThat(this.redis.lockField("distlock:{retained}:lock", "owner")).isNull();
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{retained}:lock")))
            .isBetween(1L, Duration.ofMinutes(5).toMillis());
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
        String[] now = this.redis.call("TIME").split("\n");
        long nowMillis = Long.parseLong(now[0]) * 1000 + Long.parseLong(now[1]) / 1000;
        assertThat(Long.parseLong(this.redis.lockField("distlock:{submit:42}:lock", "until")) - nowMillis)
            .isBetween(1L, 401L); // + 1: the delay's end rounds Redis's clock up to the ms, this read down
        LockHandle next = other.acquire("submit:42", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        next.release();
        assertThatThrownBy(() -> next.releaseAfter(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("delay");
    }
}
