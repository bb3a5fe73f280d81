package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.script.Scripts;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The scripts survive SCRIPT FLUSH and a server restart: NOSCRIPT makes the client load them again. */
@RedisTest
class ScriptReloadTest {

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
    void locksWorkAfterScriptFlush() {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        locks.acquire("a").release();
        assertThat(this.redis.call("SCRIPT", "FLUSH")).isEqualTo("OK");

        LockHandle lock = locks.acquire("a"); // acquire.lua is gone from the cache
        // the watchdog's renew.lua is gone too and must come back for renewals
        this.redis.call("SCRIPT", "FLUSH");
        Await.until(Duration.ofSeconds(5), () -> this.redis.call("SCRIPT", "EXISTS", renewSha(locks)).equals("1"),
                "renew.lua is loaded again by the watchdog");
        assertThat(lock.isHeld()).isTrue();
        this.redis.call("SCRIPT", "FLUSH");
        lock.release();
        assertThat(this.redis.lockField("distlock:{a}:lock", "owner")).isNull();
    }

    @Test
    void locksWorkAfterTheServerRestarts() {
        RedisLockService locks = this.clients.service();
        locks.acquire("b").release();
        this.redis.restart();
        try (LockHandle lock = locks.acquire("b", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)))) {
            assertThat(lock.isHeld()).isTrue();
        }
    }

    /**
     * A call of a script Redis lost (SCRIPT FLUSH before the service started) runs in the order it was sent, not after
     * the calls sent behind it (issue 45, 3a; ScriptPipeline): a {@code releaseAsync()} followed by another owner's
     * {@code tryAcquire()} of the same key on the same connection finds the lock free.
     */
    @Test
    void aScriptsFirstCallAfterAFlushRunsInTheOrderItWasSent() throws Exception {
        this.redis.call("SCRIPT", "FLUSH");
        RedisLockService locks = this.clients.service(); // loads the scripts when it starts
        LockOptions fixed = LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30));
        assertThat(locks.tryAcquire("warm-up", fixed.withOwner("b").withLeaseTime(Duration.ofMillis(100))))
            .isPresent(); // Redis knows the other owner's grant; left to lapse, so no fixed lease's release is sent
        LockHandle lock = locks.acquire("c", fixed);

        CompletableFuture<Void> released = lock.releaseAsync().toCompletableFuture(); // a script Redis does not know
        Optional<LockHandle> next = locks.tryAcquire("c", fixed.withOwner("b"));

        released.get(5, TimeUnit.SECONDS);
        assertThat(next).as("sent after the release, run after it").isPresent();
        next.get().release();
    }

    private static String renewSha(RedisLockService locks) {
        return Scripts.load("renew.lua", List.class).getSha1(); // as sent: with its includes and argument names
    }
}
