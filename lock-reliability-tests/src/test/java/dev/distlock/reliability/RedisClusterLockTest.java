package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.AsyncLockService;
import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.MultiLockHandle;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * Every lock type on a real three-master Redis Cluster, through Spring Data Redis's cluster connection: keys spread
 * over all masters, mutual exclusion across them, release messages by sharded pub/sub on the lock's own shard only,
 * and renewal in per-slot batches.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisClusterLockTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    /** Clearly shorter than a waiter woken only when the holder's lease ({@link #LONG_LEASE}) runs out. */
    private static final Duration PROMPT = Duration.ofSeconds(10);

    private static final Duration WAIT = Duration.ofSeconds(25);

    private final RedisServers servers = RedisServers.create();

    private ClusterTopology cluster;

    private TopologyClients clients;

    @BeforeAll
    void startCluster() {
        this.cluster = this.servers.startCluster(3, 0);
    }

    @AfterAll
    void stopCluster() {
        this.servers.close();
    }

    @BeforeEach
    void setUp() {
        this.clients = new TopologyClients();
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
        for (RedisNode master : this.cluster.masters()) {
            master.call("FLUSHALL");
        }
    }

    @Test
    void locksSpreadOverEveryMasterEachLockHashOnTheMasterOfItsSlot() {
        RedisLockService locks = service(b -> b);
        List<String> keys = keysOnEveryMaster("spread-");
        List<LockHandle> held = new ArrayList<>();
        for (String key : keys) {
            held.add(locks.acquire(key));
        }
        for (int i = 0; i < keys.size(); i++) {
            RedisNode master = this.cluster.masters().get(i);
            assertThat(master.lockField(lockHash(keys.get(i)), "owner")).isEqualTo(held.get(i).ownerToken());
            // lock keys carry a hash tag; the service's instance record (no tag) lives on whichever master its slot is
            assertThat(master.call("KEYS", "*{*")).as("master %d holds only its own lock", i)
                .isEqualTo(lockHash(keys.get(i)));
        }
        held.forEach(LockHandle::release);
    }

    @Test
    void nonBlockingCallsLockOnEveryMasterAndAWaiterIsWokenByTheReleaseOnItsShard() {
        AsyncLockService locks = service(b -> b).async();
        AsyncLockService other = service(b -> b).async();
        List<String> keys = keysOnEveryMaster("async-");
        List<LockHandle> held = new ArrayList<>();
        for (String key : keys) {
            held.add(locks.acquire(key, LockOptions.defaults()).join());
        }
        for (int i = 0; i < keys.size(); i++) {
            assertThat(this.cluster.masters().get(i).lockField(lockHash(keys.get(i)), "owner"))
                .isEqualTo(held.get(i).ownerToken());
        }
        List<CompletableFuture<LockHandle>> waiting = new ArrayList<>();
        for (String key : keys) {
            waiting.add(other.acquire(key, LockOptions.defaults().withWaitTime(WAIT)));
        }
        assertThat(waiting).noneMatch(CompletableFuture::isDone);
        held.forEach(lock -> lock.releaseAsync().join());
        for (CompletableFuture<LockHandle> next : waiting) { // woken by the release, well before the lease ends
            next.orTimeout(PROMPT.toSeconds(), TimeUnit.SECONDS).join().releaseAsync().join();
        }
    }

    @Test
    void twoServicesExcludeEachOtherOnKeysOfDifferentMasters() throws Exception {
        List<RedisLockService> services = List.of(service(b -> b), service(b -> b));
        StringRedisTemplate data = this.clients.cluster(this.cluster, null, null);
        List<String> keys = keysOnEveryMaster("counter-");
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
                            String value = data.opsForValue().get("count:" + key);
                            data.opsForValue().set("count:" + key,
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
            assertThat(data.opsForValue().get("count:" + key)).as(key)
                .isEqualTo(Integer.toString(expected.get(key).get()));
        }
        assertThat(expected.values().stream().mapToInt(AtomicInteger::get).sum()).isEqualTo(120);
    }

    @Test
    void aReleaseWakesAWaiterOfAnotherServiceBySharedPubSubOnTheLocksShardOnly() throws Exception {
        RedisLockService holder = service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService waiter = service(b -> b);
        String key = "wake";
        String channel = "distlock:{" + key + "}:released";
        RedisNode owner = this.cluster.masterForKey(channel);

        LockHandle held = holder.acquire(key);
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try (LockHandle lock = waiter.acquire(key, LockOptions.defaults().withWaitTime(WAIT))) {
                return System.nanoTime();
            }
        });
        Await.until(Duration.ofSeconds(10), () -> owner.call("PUBSUB", "SHARDNUMSUB", channel).endsWith("\n1"),
                "the waiter subscribed to the release channel with SSUBSCRIBE on " + owner);
        for (RedisNode node : this.cluster.masters()) {
            assertThat(node.call("PUBSUB", "NUMSUB", channel)).as("no classic subscription").endsWith("\n0");
            if (node != owner) {
                assertThat(node.call("PUBSUB", "SHARDCHANNELS")).as("other masters do not see it")
                    .doesNotContain(channel);
            }
        }
        assertThat(owner.call("PUBSUB", "SHARDCHANNELS")).contains(channel);

        long releasedAt = System.nanoTime();
        held.release();
        long acquiredAt = waited.get(20, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(acquiredAt - releasedAt)).isLessThan(PROMPT);
    }

    @Test
    void readWriteFairAndMultiKeyLocksWorkAcrossSlots() throws Exception {
        RedisLockService first = service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService second = service(b -> b.watchdogLease(LONG_LEASE));
        List<String> keys = keysOnEveryMaster("family-");

        // read/write on master 0: readers of both services share it, a writer waits for both, then gets it promptly
        String document = keys.get(0);
        RedisNode documentMaster = this.cluster.masters().get(0);
        LockHandle reader1 = first.acquire(document, mode(LockMode.READ));
        LockHandle reader2 = second.acquire(document, mode(LockMode.READ));
        assertThat(second.tryAcquire(document, mode(LockMode.WRITE).withOwner("writer"))).isEmpty();
        CompletableFuture<LockHandle> writer = CompletableFuture
            .supplyAsync(() -> second.acquire(document, mode(LockMode.WRITE).withWaitTime(WAIT)));
        Await.until(Duration.ofSeconds(10),
                () -> "1".equals(documentMaster.call("EXISTS", "distlock:{" + document + "}:rw:intent")),
                "the waiting writer recorded its intent on " + documentMaster);
        reader1.release();
        long releasedAt = System.nanoTime();
        reader2.release();
        LockHandle written = writer.get(20, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(PROMPT);
        assertThat(written.fencingToken()).isGreaterThan(reader2.fencingToken());
        written.release();

        // fair on master 1: the queued waiter of the other service is named by the release and gets it promptly
        String queue = keys.get(1);
        RedisNode queueMaster = this.cluster.masters().get(1);
        LockHandle fair = first.acquire(queue, mode(LockMode.FAIR));
        CompletableFuture<LockHandle> next = CompletableFuture
            .supplyAsync(() -> second.acquire(queue, mode(LockMode.FAIR).withWaitTime(WAIT)));
        Await.until(Duration.ofSeconds(10),
                () -> "1".equals(queueMaster.call("ZCARD", "distlock:{" + queue + "}:fair:queue")),
                "the fair waiter queued on " + queueMaster);
        releasedAt = System.nanoTime();
        fair.release();
        next.get(20, TimeUnit.SECONDS).release();
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(PROMPT);

        // multi-key over all three masters: all or nothing, each member on the master of its slot
        MultiLockHandle all = first.acquireAll(keys, LockOptions.defaults());
        for (int i = 0; i < keys.size(); i++) {
            assertThat(this.cluster.masters().get(i).lockField(lockHash(keys.get(i)), "owner"))
                .isEqualTo(all.member(keys.get(i)).ownerToken());
        }
        assertThat(second.tryAcquireAll(List.of(keys.get(2), "elsewhere"), LockOptions.defaults())).isEmpty();
        assertThat(this.cluster.masterForKey(lockHash("elsewhere")).lockField(lockHash("elsewhere"), "owner"))
            .as("the refused set left nothing held").isNull();
        CompletableFuture<MultiLockHandle> set = CompletableFuture
            .supplyAsync(() -> second.acquireAll(keys, LockOptions.defaults().withWaitTime(WAIT)));
        releasedAt = System.nanoTime();
        all.release();
        set.get(20, TimeUnit.SECONDS).release();
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(PROMPT);
    }

    @Test
    void renewalKeepsLocksOfEveryTypeOnEveryMasterAliveForMoreThanThreeLeases() {
        Duration lease = Duration.ofMillis(1500);
        List<LeaseLostException> lost = new ArrayList<>();
        RedisLockService locks = service(b -> b.watchdogLease(lease).listener(event -> {
            if (event instanceof LockEvent.LeaseLost leaseLost) {
                synchronized (lost) {
                    lost.add(leaseLost.reason());
                }
            }
        }));
        List<LockHandle> held = new ArrayList<>();
        Map<LockHandle, RedisNode> masterOf = new LinkedHashMap<>();
        List<String> exclusive = keysOnEveryMaster("renew-");
        exclusive.addAll(twoKeysInOneSlot()); // one renewal batch with two locks
        for (String key : exclusive) {
            LockHandle lock = locks.acquire(key);
            held.add(lock);
            masterOf.put(lock, this.cluster.masterForKey(lockHash(key)));
        }
        List<String> others = keysOnEveryMaster("renew-type-");
        held.add(locks.acquire(others.get(0), mode(LockMode.READ)));
        held.add(locks.acquire(others.get(1), mode(LockMode.WRITE)));
        held.add(locks.acquire(others.get(2), mode(LockMode.FAIR)));
        assertThat(locks.renewingCount()).isEqualTo(held.size());

        long start = System.nanoTime();
        Duration threeLeases = lease.multipliedBy(3).plusMillis(500);
        Await.until(threeLeases.plusSeconds(5), () -> {
            assertThat(held).allMatch(LockHandle::isHeld);
            return Duration.ofNanos(System.nanoTime() - start).compareTo(threeLeases) > 0;
        }, "more than three leases passed with every lock held");

        assertThat(lost).isEmpty();
        masterOf.forEach((lock, master) -> assertThat(Long.parseLong(master.call("PTTL", lockHash(lock.key()))))
            .as(lock.key()).isPositive());
        held.forEach(LockHandle::release);
    }

    @Test
    void withoutPermissionForShardedPubSubReleasesFallBackToClassicPubSub() throws Exception {
        for (RedisNode node : this.cluster.nodes()) {
            node.call("ACL", "SETUSER", "classic", "reset", "on", ">classic-secret", "~*", "&*", "+@all",
                    "-spublish", "-ssubscribe", "-sunsubscribe");
        }
        RedisLockService holder = this.clients.service(this.clients.cluster(this.cluster, "classic", "classic-secret"),
                b -> b.watchdogLease(LONG_LEASE));
        RedisLockService waiter = this.clients.service(this.clients.cluster(this.cluster, "classic", "classic-secret"),
                b -> b);
        holder.verifyAccess();
        String key = "classic";
        String channel = "distlock:{" + key + "}:released";

        LockHandle held = holder.acquire(key);
        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            try (LockHandle lock = waiter.acquire(key, LockOptions.defaults().withWaitTime(WAIT))) {
                return System.nanoTime();
            }
        });
        Await.until(Duration.ofSeconds(10), () -> classicSubscribers(channel) == 1,
                "the waiter subscribed to the release channel with SUBSCRIBE on some node");
        for (RedisNode node : this.cluster.masters()) {
            assertThat(node.call("PUBSUB", "SHARDNUMSUB", channel)).endsWith("\n0");
        }
        long releasedAt = System.nanoTime();
        held.release();
        long acquiredAt = waited.get(20, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(acquiredAt - releasedAt)).isLessThan(PROMPT);
    }

    private RedisLockService service(UnaryOperator<RedisLockServiceBuilder> settings) {
        return this.clients.service(this.clients.cluster(this.cluster, null, null), settings);
    }

    private int classicSubscribers(String channel) {
        int subscribers = 0;
        for (RedisNode node : this.cluster.nodes()) {
            String reply = node.call("PUBSUB", "NUMSUB", channel);
            subscribers += Integer.parseInt(reply.substring(reply.lastIndexOf('\n') + 1));
        }
        return subscribers;
    }

    /** One key per master, in master order: key i's lock lives on master i. */
    private List<String> keysOnEveryMaster(String prefix) {
        List<String> keys = new ArrayList<>();
        for (RedisNode master : this.cluster.masters()) {
            int i = 0;
            while (this.cluster.masterForKey(lockHash(prefix + i)) != master) {
                i++;
            }
            keys.add(prefix + i);
        }
        return keys;
    }

    /** Two keys with different hash tags in the same slot. */
    private static List<String> twoKeysInOneSlot() {
        Map<Integer, String> bySlot = new HashMap<>();
        for (int i = 0;; i++) {
            String key = "slot-mate-" + i;
            String mate = bySlot.putIfAbsent(ClusterTopology.slotOf(lockHash(key)), key);
            if (mate != null) {
                return List.of(mate, key);
            }
        }
    }

    private static LockOptions mode(LockMode mode) {
        return LockOptions.defaults().withMode(mode);
    }

    private static String lockHash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
