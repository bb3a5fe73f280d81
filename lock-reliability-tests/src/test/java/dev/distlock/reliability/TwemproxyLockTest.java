package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.TwemproxyTopology;

/**
 * Locks through a real Twemproxy (nutcracker) in front of two Redis shards, with {@code shardingProxy(true)}: no
 * pub/sub (waiters poll), scripts routed by their first key, renewals one lock per script call. Skipped, saying why,
 * without nutcracker.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TwemproxyLockTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    private static final Duration WAIT = Duration.ofSeconds(25);

    /**
     * The command timeout of the services built without the proxy setting: each command nutcracker does not know (the
     * builder's INFO, the waiter's SUBSCRIBE) closes the connection and is retried until it times out, which that test
     * waits for three times; far above a script's round trip through the proxy.
     */
    private static final Duration UNKNOWN_COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private static final Pattern EVALSHA_CALLS = Pattern.compile("cmdstat_evalsha:calls=(\\d+)");

    private final RedisServers servers = RedisServers.create();

    private TwemproxyTopology proxy;

    private TopologyClients clients;

    @BeforeAll
    void startProxy() {
        assumeTrue(TwemproxyTopology.isAvailable(), TwemproxyTopology.SKIP_MESSAGE);
        this.proxy = this.servers.startTwemproxy(2);
    }

    @AfterAll
    void stopProxy() {
        this.servers.close();
    }

    @BeforeEach
    void setUp() {
        this.clients = new TopologyClients();
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
        if (this.proxy != null) {
            for (RedisNode shard : this.proxy.shards()) {
                shard.call("FLUSHALL");
            }
        }
    }

    @Test
    void twoServicesExcludeEachOtherOnKeysOfBothShards() throws Exception {
        List<RedisLockService> services = List.of(service(b -> b), service(b -> b));
        services.get(0).verifyAccess(); // opens no subscription behind the proxy
        StringRedisTemplate data = this.clients.twemproxy(this.proxy);
        List<String> keys = keysOnEveryShard(services.get(0), "counter-");
        Map<String, AtomicInteger> expected = new HashMap<>();
        keys.forEach(key -> expected.put(key, new AtomicInteger()));
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                RedisLockService locks = services.get(t % 2);
                int offset = t;
                workers.add(threads.submit(() -> {
                    for (int i = 0; i < 30; i++) {
                        String key = keys.get((i + offset) % keys.size());
                        try (LockHandle lock = locks.acquire(key, LockOptions.defaults().withWaitTime(WAIT))) {
                            // a non-atomic read-modify-write: only the lock keeps increments from getting lost
                            String value = data.opsForValue().get("count:{" + key + "}");
                            data.opsForValue().set("count:{" + key + "}",
                                    Integer.toString(value == null ? 1 : Integer.parseInt(value) + 1));
                        }
                        expected.get(key).incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
        for (String key : keys) {
            assertThat(data.opsForValue().get("count:{" + key + "}")).as(key)
                .isEqualTo(Integer.toString(expected.get(key).get()));
        }
    }

    @Test
    void aWaiterGetsTheLockSoonAfterTheReleaseWithoutPubSub() throws Exception {
        RedisLockService holder = service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService waiter = service(b -> b);
        for (LockMode mode : List.of(LockMode.EXCLUSIVE, LockMode.WRITE, LockMode.FAIR)) {
            String key = "hand-off-" + mode;
            LockOptions options = LockOptions.defaults().withMode(mode);
            LockHandle held = holder.acquire(key, options);
            RedisNode shard = this.proxy.shardHolding(lockHash(key, mode));
            long before = evalshaCalls(shard);
            CompletableFuture<LockHandle> waited = CompletableFuture
                .supplyAsync(() -> waiter.acquire(key, options.withWaitTime(WAIT)));
            Await.until(Duration.ofSeconds(10), () -> evalshaCalls(shard) >= before + 3,
                    "the waiter polled " + key + " on " + shard);
            long releasedAt = System.nanoTime();
            held.release();
            LockHandle next = waited.get(20, TimeUnit.SECONDS);
            // the holder's lease had 30 s to run
            assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).as(key).isLessThan(Duration.ofSeconds(10));
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            next.release();
        }
    }

    @Test
    void renewalKeepsLocksOfEveryTypeOnBothShardsAliveForMoreThanThreeLeases() {
        Duration lease = Duration.ofMillis(1500);
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        RedisLockService locks = service(b -> b.watchdogLease(lease));
        List<LockHandle> held = new ArrayList<>();
        for (LockMode mode : LockMode.values()) {
            // several locks of one type on both shards: one renewal batch per type would miss the other shard
            for (String key : keysOnEveryShard(locks, "renew-" + mode + "-")) {
                LockOptions options = LockOptions.defaults().withMode(mode);
                LockHandle lock = locks.acquire(key, mode.isSemaphore() ? options.withPermits(2) : options);
                lock.onLeaseLost(lost::add);
                held.add(lock);
            }
        }
        long start = System.nanoTime();
        Duration threeLeases = lease.multipliedBy(3).plusMillis(500);
        Await.until(threeLeases.plusSeconds(5), () -> {
            assertThat(held).allMatch(LockHandle::isHeld);
            return Duration.ofNanos(System.nanoTime() - start).compareTo(threeLeases) > 0;
        }, "more than three leases passed with every lock held");
        assertThat(lost).isEmpty();
        held.forEach(LockHandle::release);
    }

    @Test
    void aLockDeletedOnItsShardBehindTheHoldersBackIsReportedLost() {
        RedisLockService locks = service(b -> b.watchdogLease(Duration.ofMillis(1500)));
        List<LeaseLostException> lost = new CopyOnWriteArrayList<>();
        LockHandle lock = locks.acquire("deleted");
        lock.onLeaseLost(lost::add);
        RedisNode shard = this.proxy.shardHolding(lockHash("deleted", LockMode.EXCLUSIVE));
        assertThat(shard).isNotNull();

        shard.call("DEL", lockHash("deleted", LockMode.EXCLUSIVE));

        Await.until(Duration.ofSeconds(10), () -> !lost.isEmpty(), "the lost lease was reported");
        assertThat(lock.isHeld()).isFalse();
        assertThat(lost.get(0).key()).isEqualTo("deleted");
    }

    @Test
    void withoutTheProxySettingWaitersFallBackToPollingWhenSubscribingFails() throws Exception {
        RedisLockService holder = this.clients.service(this.clients.twemproxy(this.proxy, UNKNOWN_COMMAND_TIMEOUT),
                b -> b.watchdogLease(LONG_LEASE));
        RedisLockService waiter = this.clients.service(this.clients.twemproxy(this.proxy, UNKNOWN_COMMAND_TIMEOUT),
                b -> b);
        LockHandle held = holder.acquire("fallback");
        CompletableFuture<LockHandle> waited = CompletableFuture.supplyAsync(
                () -> waiter.acquire("fallback", LockOptions.defaults().withWaitTime(WAIT)));
        RedisNode shard = this.proxy.shardHolding(lockHash("fallback", LockMode.EXCLUSIVE));
        long before = evalshaCalls(shard);
        Await.until(Duration.ofSeconds(10), () -> evalshaCalls(shard) >= before + 3, "the waiter polled");
        long releasedAt = System.nanoTime();
        held.release();
        waited.get(20, TimeUnit.SECONDS).release();
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(10));
    }

    private RedisLockService service(UnaryOperator<RedisLockServiceBuilder> settings) {
        return this.clients.service(this.clients.twemproxy(this.proxy), b -> settings.apply(b.shardingProxy(true)));
    }

    /** One key per shard, in shard order; found by taking each candidate's lock and seeing where it lands. */
    private List<String> keysOnEveryShard(RedisLockService locks, String prefix) {
        return TwemproxyShards.keysOnEveryShard(this.proxy, prefix, key -> {
            try (LockHandle lock = locks.acquire(key)) {
                return this.proxy.shardHolding(lockHash(key, LockMode.EXCLUSIVE));
            }
        });
    }

    private static long evalshaCalls(RedisNode shard) {
        Matcher calls = EVALSHA_CALLS.matcher(shard.call("INFO", "commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    /** The Redis key that shows where a lock of this type lives. */
    private static String lockHash(String key, LockMode mode) {
        return switch (mode) {
            case EXCLUSIVE -> "distlock:{" + key + "}:lock";
            case READ -> "distlock:{" + key + "}:rw:readers";
            case WRITE -> "distlock:{" + key + "}:rw:write";
            case FAIR -> "distlock:{" + key + "}:fair:lock";
            case SEMAPHORE, FAIR_SEMAPHORE -> "distlock:{" + key + "}:sem:leases";
        };
    }
}
