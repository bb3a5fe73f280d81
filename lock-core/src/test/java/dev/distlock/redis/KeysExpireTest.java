package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Every key a lock writes carries an expiry, whatever created it: a key without one would outlive a holder that died
 * and stay in Redis for ever. Checked after first grants of every lock type, with a fair waiter queued, and after
 * renewals and re-entries (which extend expiries without ever shortening one).
 */
@RedisTest
class KeysExpireTest {

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void noKeyOfAnyLockTypeIsLeftWithoutAnExpiry() throws Exception {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        Duration lease = Duration.ofSeconds(20);
        LockOptions fixed = LockOptions.defaults().withLeaseTime(lease);
        LockHandle exclusive = locks.acquire("expire:exclusive", fixed.withOwner("expire-owner"));
        LockHandle reentered = locks.acquire("expire:exclusive",
                LockOptions.defaults().withLeaseTime(Duration.ofSeconds(5)).withOwner("expire-owner"));
        LockHandle read = locks.acquire("expire:read", fixed.withMode(LockMode.READ));
        LockHandle write = locks.acquire("expire:write", fixed.withMode(LockMode.WRITE));
        LockHandle fair = locks.acquire("expire:fair", fixed.withMode(LockMode.FAIR));
        LockHandle permit = locks.acquire("expire:semaphore", fixed.withPermits(3));
        LockHandle watched = locks.acquire("expire:watched", LockOptions.defaults().withMode(LockMode.READ));
        CompletableFuture<LockHandle> fairWaiter = other.async()
            .acquire("expire:fair", LockOptions.defaults().withMode(LockMode.FAIR).withWaitTime(Duration.ofSeconds(30)));
        Await.until(Duration.ofSeconds(10), () -> !this.clients.template().keys("*fair:queue*").isEmpty(),
                "the fair waiter queued");

        assertThat(keysWithoutExpiry()).as("lock keys with no expiry (PTTL -1)").isEmpty();

        for (LockHandle handle : new LockHandle[] { reentered, exclusive, read, write, permit, watched }) {
            handle.release();
        }
        fair.release();
        fairWaiter.get(10, TimeUnit.SECONDS).release();
        assertThat(keysWithoutExpiry()).as("lock keys with no expiry after the releases").isEmpty();
    }

    private Map<String, Long> keysWithoutExpiry() {
        Map<String, Long> found = new TreeMap<>();
        for (String key : this.clients.template().keys("*")) {
            Long ttl = this.clients.template().getExpire(key, TimeUnit.MILLISECONDS);
            if (ttl != null && ttl == -1) {
                found.put(key, ttl);
            }
        }
        return found;
    }
}
