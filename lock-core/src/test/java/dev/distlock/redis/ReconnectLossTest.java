package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Holders learn at once that a reconnect found their lock gone, not at the next renewal (watchdog) or at release
 * (fixed lease); and the eviction policy is checked.
 */
@RedisTest
class ReconnectLossTest {

    /** The clients' command timeout (see {@link RedisClients#template()}). */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        this.clients.close();
    }

    @Test
    void holdersAreToldWithinACommandTimeoutOfTheReconnectToARedisThatLostTheirLocks() {
        // renewal every 10 s, and a fixed lease that nothing renews: without the check, both learn late
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(30)));
        Map<String, LeaseLostException> lost = new ConcurrentHashMap<>();
        List<LockHandle> handles = new CopyOnWriteArrayList<>();
        for (LockMode mode : LockMode.values()) {
            LockOptions options = LockOptions.defaults().withMode(mode);
            options = mode.isSemaphore() ? options.withPermits(2) : options;
            handles.add(locks.acquire("watched:" + mode, options));
            handles.add(locks.acquire("fixed:" + mode, options.withLeaseTime(Duration.ofMinutes(2))));
        }
        LockHandle other = this.clients.service().acquire("other-client"); // another service checks its own
        handles.forEach(handle -> handle.onLeaseLost(reason -> lost.put(handle.key(), reason)));

        this.redis.restart(); // empty
        Await.until(Duration.ofSeconds(30), () -> {
            try {
                locks.ping();
                return true;
            }
            catch (RuntimeException ex) {
                return false;
            }
        }, "the service's connection comes back");
        Await.until(COMMAND_TIMEOUT, () -> lost.size() == handles.size(), "every holder is told: " + lost.keySet());

        assertThat(lost.values()).allSatisfy(reason -> assertThat(reason).hasMessageContaining("was gone from Redis"));
        assertThat(handles).noneMatch(LockHandle::isHeld);
        assertThat(locks.heldLocks()).isEmpty();
        Await.until(COMMAND_TIMEOUT, () -> !other.isHeld(), "the other service's holder is told too");
    }

    @Test
    void aReconnectToTheSameProcessThatKeptTheLockReportsNothing() {
        RedisLockService locks = this.clients.service();
        LockHandle lock = locks.acquire("survives");
        LockHandle fixed = locks.acquire("survives-fixed", LockOptions.defaults().withLeaseTime(Duration.ofMinutes(2)));
        assertThat(this.redis.call("TYPE", "distlock:{survives-fixed}:lock")).isEqualTo("hash");
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        lock.onLeaseLost(lost::add);
        fixed.onLeaseLost(lost::add);
        this.redis.call("CONFIG", "RESETSTAT");
        this.redis.call("CLIENT", "KILL", "TYPE", "normal"); // drops the service's connection, keeps the data
        locks.ping(); // reconnects
        // the check after the reconnect reads each lock hash's owner with HGET (no script ran since the reset)
        Await.until(COMMAND_TIMEOUT, () -> this.redis.call("INFO", "commandstats").matches(
                "(?s).*cmdstat_hget:calls=([2-9]|\\d\\d+),.*"), "the check after the reconnect ran for both locks");
        assertThat(lock.isHeld()).isTrue();
        assertThat(fixed.isHeld()).isTrue();
        lock.release();
        fixed.release();
        assertThat(lost).isEmpty();
    }

    @Test
    void anEvictionPolicyThatMayDeleteHeldLocksIsReportedOrRefused() {
        this.redis.call("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
        assertThatThrownBy(() -> this.clients.service(b -> b.evictionPolicyCheck(EvictionPolicyCheck.FAIL)))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("volatile-lru")
            .hasMessageContaining("maxmemory-policy noeviction");
        // the default only warns, and the service works
        try (LockHandle lock = this.clients.service().acquire("under-volatile-lru")) {
            assertThat(lock.isHeld()).isTrue();
        }
        this.redis.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
        assertThat(this.clients.service(b -> b.evictionPolicyCheck(EvictionPolicyCheck.FAIL))).isNotNull();
    }
}
