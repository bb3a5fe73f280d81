package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.script.LockScripts;
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

    private static String renewSha(RedisLockService locks) {
        return LockScripts.load("renew.lua", List.class).getSha1(); // as sent: with its includes and argument names
    }
}
