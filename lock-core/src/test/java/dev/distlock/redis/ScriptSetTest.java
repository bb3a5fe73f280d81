package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A service's scripts are one bounded set, loaded when it starts: calls with many different leases, flags and lock
 * types leave Redis's script cache as the start left it.
 */
@RedisTest
class ScriptSetTest {

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
    void callsOfEveryKindLeaveTheScriptSetLoadedAtStartAsItWas() {
        this.redis.call("SCRIPT", "FLUSH");
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(900)));
        locks.verifyAccess(); // as an application starts: the ACL decides which variant of the scripts runs
        long atStart = cachedScripts();
        assertThat(atStart).as("scripts loaded when the service started").isGreaterThanOrEqualTo(15);

        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            LockOptions options = (i % 2 == 0) ? LockOptions.defaults()
                    : LockOptions.defaults().withLeaseTime(Duration.ofMillis(1_000 + 37 * i));
            LockHandle lock = locks.acquire("k" + i, options);
            LockHandle again = locks.acquire("k" + i, options); // a re-entry
            again.release();
            if (i % 3 == 0) {
                lock.releaseAfter(Duration.ofMillis(10 + i));
            }
            else {
                held.add(lock);
            }
        }
        LockHandle blocker = locks.acquire("contended");
        assertThat(locks.tryAcquire("contended", LockOptions.defaults().withOwner("b")
            .withWaitTime(Duration.ofMillis(50)))).isEmpty(); // a waiting caller refused
        blocker.release();
        for (LockMode mode : LockMode.values()) {
            for (int i = 0; i < 3; i++) {
                LockOptions options = LockOptions.defaults().withMode(mode).withLeaseTime(Duration.ofMillis(2_000 + i));
                locks.acquire("m-" + mode + i, mode.name().contains("SEMAPHORE") ? options.withPermits(3 + i) : options)
                    .release();
            }
        }
        for (int limit = 2; limit < 6; limit++) {
            locks.acquire("sem", LockOptions.defaults().withPermits(limit, 1)).release();
        }
        held.forEach(LockHandle::release);

        assertThat(cachedScripts()).as("scripts in Redis after every kind of call").isEqualTo(atStart);
    }

    private long cachedScripts() {
        for (String line : this.redis.call("INFO", "memory").split("\r?\n")) {
            if (line.startsWith("number_of_cached_scripts:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no number_of_cached_scripts");
    }
}
