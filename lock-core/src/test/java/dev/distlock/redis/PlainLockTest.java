package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.LockFields;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * {@link PlainLock}, lock-core's one reader of the plain lock's hash, agrees with lock-test-support's {@link LockFields}
 * (which cannot depend on lock-core) on what the scripts really leave in Redis: held once by the watchdog, held with a
 * waiter refused, held twice with a fixed lease, and free.
 */
@RedisTest
class PlainLockTest {

    private static final String NAME = "distlock:{plain}:lock";

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
    void bothReadersReadEveryStateAlike(RedisNode redis) throws Exception {
        RedisLockService locks = this.clients.service();
        StringRedisTemplate template = this.clients.template();

        LockHandle held = locks.acquire("plain");
        assertThat(redis.call("TYPE", NAME)).isEqualTo("hash");
        PlainLock once = agreeing(redis, template);
        assertThat(once.owner()).isEqualTo(held.ownerToken());
        assertThat(once.holds()).isEqualTo(1);
        assertThat(once.watched()).isTrue();
        assertThat(once.fence()).isEqualTo(held.fencingToken()).isEqualTo(once.chain());
        assertThat(once.waiting()).isFalse();
        assertThat(PlainLock.readOwner(template, NAME)).isEqualTo(held.ownerToken());

        RedisLockService other = this.clients.service();
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                () -> other.acquire("plain", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        Await.until(Duration.ofSeconds(10), () -> PlainLock.read(template, NAME).waiting(), "the waiter's mark");
        assertThat(agreeing(redis, template).waiting()).isTrue();
        held.release();
        waiter.get(20, TimeUnit.SECONDS).release();

        LockHandle outer = locks.acquire("plain", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        try (LockHandle inner = locks.acquire("plain")) {
            assertThat(redis.call("TYPE", NAME)).isEqualTo("hash");
            PlainLock hash = agreeing(redis, template);
            assertThat(hash.owner()).isEqualTo(inner.ownerToken());
            assertThat(hash.holds()).isEqualTo(2);
            assertThat(hash.watched()).isTrue();
            assertThat(hash.fence()).isEqualTo(outer.fencingToken());
            assertThat(PlainLock.readOwner(template, NAME)).isEqualTo(inner.ownerToken());
        }
        outer.release();
        PlainLock free = agreeing(redis, template);
        assertThat(free.owner()).isNull();
        assertThat(free.holds()).isZero();
        assertThat(free.fence()).isEqualTo(outer.fencingToken());
        assertThat(redis.call("TYPE", NAME)).isEqualTo("hash");
        assertThat(PlainLock.readOwner(template, NAME)).isNull();
    }

    /** What PlainLock reads, checked against LockFields's reading of the same key. */
    private static PlainLock agreeing(RedisNode redis, StringRedisTemplate template) {
        PlainLock read = PlainLock.read(template, NAME);
        assertThat(read).isEqualTo(PlainLock.ofHash(LockFields.of(redis, NAME)));
        return read;
    }
}
