package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Valkey (8.0 here) and Redis 7.4+ evict scripts loaded by EVAL beyond 500, least recently run first; Redis 7.0 keeps
 * them all. Another application's scripts on the same server evict its own, never the lock's: the service loads them
 * with SCRIPT LOAD, which these servers never evict, so its calls meet no NOSCRIPT. (Before, the lock's scripts were
 * EVAL-loaded and evicted, and loaded again after NOSCRIPT.) Runs on the run's server (lock-core's tests run on Valkey
 * too).
 */
@RedisTest
class ScriptEvictionTest {

    /** More than the 500 EVAL-loaded scripts an evicting server keeps. */
    private static final int OTHER_SCRIPTS = 600;

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
    void anotherApplicationsScriptsEvictNoneOfTheLocks() {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(900)));
        boolean evicts = this.redis.call("INFO", "stats").contains("evicted_scripts:");
        cycle(locks); // the lock's scripts were loaded when the service started (SCRIPT LOAD)
        this.redis.call("CONFIG", "RESETSTAT");
        cycle(locks);
        assertThat(evals()).as("EVALs of a cycle whose scripts are loaded").isZero();

        for (int i = 0; i < OTHER_SCRIPTS; i++) { // another application's scripts
            this.redis.call("EVAL", "return " + i, "0");
        }
        if (evicts) {
            assertThat(stat(this.redis.call("INFO", "stats"), "evicted_scripts")).as("scripts evicted")
                .isGreaterThanOrEqualTo(OTHER_SCRIPTS - 500);
        }
        this.redis.call("CONFIG", "RESETSTAT");
        cycle(locks);
        assertThat(evals()).as("EVALs that loaded an evicted lock script again").isZero();
    }

    /** Takes a lock, sees the watchdog renew it twice, and releases it. */
    private void cycle(RedisLockService locks) {
        LockHandle lock = locks.acquire("a");
        assertThat(this.redis.call("PTTL", "distlock:{a}:lock")).isNotEqualTo("-1").isNotEqualTo("-2");
        long sent = stat(this.redis.call("INFO", "commandstats"), "cmdstat_evalsha");
        Await.until(Duration.ofSeconds(5),
                () -> stat(this.redis.call("INFO", "commandstats"), "cmdstat_evalsha") >= sent + 2,
                "the watchdog renews");
        assertThat(lock.isHeld()).isTrue();
        lock.release();
        assertThat(this.redis.lockField("distlock:{a}:lock", "owner")).isNull();
    }

    private long evals() {
        return stat(this.redis.call("INFO", "commandstats"), "cmdstat_eval");
    }

    /** A number from INFO: {@code name:value} or {@code name:calls=value,...}; 0 when absent. */
    private static long stat(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                String value = line.substring(name.length() + 1);
                if (value.startsWith("calls=")) {
                    value = value.substring("calls=".length(), value.indexOf(','));
                }
                return Long.parseLong(value.trim());
            }
        }
        return 0;
    }
}
