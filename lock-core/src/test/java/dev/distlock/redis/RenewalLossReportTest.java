package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * What the watchdog reports when a renewal finds a lease gone, and that one broken lock costs no other lock its lease:
 * the reason names what the timing shows, and a key overwritten with another type fails only its own renewal.
 */
@RedisTest
class RenewalLossReportTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    private RedisNode redis;

    private RedisClients clients;

    private final Map<String, LeaseLostException> lost = new ConcurrentHashMap<>();

    private final AtomicLong renewed = new AtomicLong();

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
    void aRenewalThatReachesRedisAfterTheLeaseEndedIsNotBlamedOnARestart() {
        try (FaultProxy proxy = FaultProxy.start(this.redis.port())) {
            RedisLockService locks = service(this.clients.template(proxy.port(), Duration.ofSeconds(5)));
            LockHandle lock = locks.acquire("late");
            watch(lock, "late");
            Await.until(Duration.ofSeconds(5), () -> this.renewed.get() >= 2, "two renewals");
            // Renewals sent from now on, before the lease's end, reach Redis after it: the lease runs out in Redis.
            proxy.stall(LEASE.multipliedBy(2));
            Await.until(Duration.ofSeconds(10), () -> this.lost.containsKey("late"), "the loss reported");
            assertThat(this.lost.get("late").getMessage()).as("the reason given")
                .doesNotContain("restarted")
                .contains("answered after");
        }
    }

    @Test
    void aLockOverwrittenWithAnotherTypeLosesItsLeaseAloneAndAtOnce() {
        RedisLockService locks = service(this.clients.template());
        LockHandle kept = watch(locks.acquire("kept"), "kept");
        LockHandle broken = watch(locks.acquire("broken"), "broken");
        LockHandle keptReader = watch(locks.acquire("kept-read", LockOptions.defaults().withMode(LockMode.READ)),
                "kept-read");
        LockHandle brokenReader = watch(locks.acquire("broken-read",
                LockOptions.defaults().withMode(LockMode.READ)), "broken-read");
        LockHandle keptPermit = watch(locks.acquire("kept-sem", LockOptions.defaults().withPermits(2)), "kept-sem");
        LockHandle brokenPermit = watch(locks.acquire("broken-sem", LockOptions.defaults().withPermits(2)),
                "broken-sem");
        long overwritten = System.nanoTime();
        this.redis.call("SET", "distlock:{broken}:lock", "not a hash", "PX", "60000");
        this.redis.call("SET", "distlock:{broken-read}:rw:readers", "not a sorted set", "PX", "60000");
        this.redis.call("SET", "distlock:{broken-sem}:sem:leases", "not a sorted set", "PX", "60000");

        Await.until(Duration.ofSeconds(10), () -> this.lost.keySet().containsAll(List.of("broken", "broken-read",
                "broken-sem")), "the three overwritten locks reported lost");
        // found not held by the renewal's answer, not run out after failed renewals
        assertThat(this.lost.get("broken")).hasMessageContaining("taken by another owner")
            .hasMessageNotContaining("could not be reached");
        assertThat(this.lost.get("broken-read")).hasMessageContaining("'broken-read'")
            .hasMessageNotContaining("could not be reached");
        assertThat(this.lost.get("broken-sem")).hasMessageContaining("'broken-sem'")
            .hasMessageNotContaining("could not be reached");
        this.renewed.set(0);
        Await.until(Duration.ofSeconds(10), () -> this.renewed.get() >= 9 && System.nanoTime() - overwritten > LEASE
            .multipliedBy(3).toNanos(), "three leases of renewals of the three kept locks");
        assertThat(this.lost).as("leases lost").containsOnlyKeys("broken", "broken-read", "broken-sem");
        assertThat(List.of(kept, keptReader, keptPermit)).allMatch(LockHandle::isHeld);
        assertThat(Long.parseLong(this.redis.call("PTTL", "distlock:{kept}:lock"))).isPositive();
        assertThat(this.redis.call("ZRANGE", "distlock:{kept-read}:rw:readers", "0", "-1")).isNotEmpty();
        assertThat(broken.isHeld()).isFalse();
        assertThat(this.redis.call("ZRANGE", "distlock:{kept-sem}:sem:leases", "0", "-1")).isNotEmpty();
        assertThat(brokenReader.isHeld()).isFalse();
        assertThat(brokenPermit.isHeld()).isFalse();
        kept.release();
        keptReader.release();
        keptPermit.release();
    }

    private RedisLockService service(StringRedisTemplate template) {
        return this.clients.service(template, b -> b.watchdogLease(LEASE).listener(event -> {
            if (event instanceof LockEvent.Renewed renewal) {
                this.renewed.addAndGet(renewal.count());
            }
        }));
    }

    private LockHandle watch(LockHandle lock, String key) {
        lock.onLeaseLost(ex -> this.lost.put(key, ex));
        return lock;
    }
}
