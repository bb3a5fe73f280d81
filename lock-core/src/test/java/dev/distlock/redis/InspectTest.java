package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockHolder;
import dev.distlock.LockInstance;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockStatus;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * {@link RedisLockService#inspect}: one key's holders and waiters read from Redis by another service instance (another
 * application name), for every lock type, with the instance records (InstanceRecord) they name.
 */
@RedisTest
class InspectTest {

    /** Renewal (and instance record refresh) every 500 ms. */
    private static final Duration LEASE = Duration.ofMillis(1500);

    private RedisClients clients;

    /** Run before the services close: the holding threads end. */
    private final List<Runnable> releases = new ArrayList<>();

    /** Run after the services closed: this test's own connections. */
    private final List<Runnable> cleanUps = new ArrayList<>();

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.releases.forEach(Runnable::run);
        this.clients.close();
        this.cleanUps.forEach(Runnable::run);
    }

    private RedisLockService service(String application) {
        return this.clients.service(b -> b.applicationName(application).watchdogLease(LEASE));
    }

    @Test
    void aLockHeldByOneInstanceIsInspectedFromAnotherWithItsHolderAndWaiting(RedisNode redis) throws Exception {
        RedisLockService billing = service("billing");
        RedisLockService shipping = service("shipping");
        long before = System.currentTimeMillis();
        AtomicReference<LockHandle> held = new AtomicReference<>();
        CountDownLatch release = holdOnThread("booking-worker-1", () -> billing.acquire("order:42"), held);
        long after = System.currentTimeMillis();

        // the owner is published once the hold is older than one renewal interval
        Await.until(Duration.ofSeconds(10), () -> holder(shipping.inspect("order:42"), LockMode.EXCLUSIVE).owner() != null,
                "the holder's instance published the owner of its long hold");
        List<LockStatus> states = shipping.inspect("order:42");
        assertThat(states).hasSize(1);
        LockStatus state = states.get(0);
        assertThat(state.key()).isEqualTo("order:42");
        assertThat(state.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(state.waiters()).isEmpty();
        assertThat(state.othersWaiting()).isFalse();
        LockHolder holder = state.holders().get(0);
        assertThat(holder.owner()).isEqualTo("thread booking-worker-1");
        assertThat(holder.fencingToken()).isEqualTo(held.get().fencingToken());
        assertThat(holder.since()).isBetween(Instant.ofEpochMilli(before - 1000), Instant.ofEpochMilli(after + 1000));
        assertThat(holder.leaseLeft()).isPositive().isLessThanOrEqualTo(LEASE);
        assertThat(holder.holdCount()).isEqualTo(1);
        assertThat(holder.permits()).isEqualTo(1);
        LockInstance instance = holder.instance();
        assertThat(instance.id()).isEqualTo(billing.instanceId()).isNotEqualTo(shipping.instanceId());
        assertThat(instance.application()).isEqualTo("billing");
        assertThat(instance.host()).isEqualTo(InetAddress.getLocalHost().getHostName());
        assertThat(instance.pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(instance.started()).isBetween(Instant.ofEpochMilli(before - 5000), Instant.ofEpochMilli(after));
        assertThat(instance.lastSeen()).isNotNull();
        assertThat(held.get().ownerToken()).startsWith(billing.instanceId()).hasSize(32);

        // the record in Redis: its documented fields, and no owner token's secret beyond the lock's own data
        Map<String, String> record = hash(redis, "distlock:instance:" + billing.instanceId());
        assertThat(record).containsKeys("host", "app", "pid", "started", "expiry",
                "hold:" + held.get().ownerToken());
        assertThat(record.get("hold:" + held.get().ownerToken())).endsWith(" thread booking-worker-1");
        assertThat(Long.parseLong(redis.call("PTTL", "distlock:instance:" + billing.instanceId())))
            .isPositive().isLessThanOrEqualTo(Long.parseLong(record.get("expiry")));

        // a caller of a third instance waits: the lock says so (exclusive waiters queue in their own processes)
        RedisLockService third = service("third");
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                () -> third.acquire("order:42", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        Await.until(Duration.ofSeconds(10), () -> shipping.inspect("order:42").get(0).othersWaiting(),
                "the refused waiter's mark is seen");
        release.countDown();
        waiter.get(20, TimeUnit.SECONDS).release();
    }

    @Test
    void theHoldingInstanceKnowsItsOwnOwnerAtOnce() {
        RedisLockService billing = service("billing");
        try (LockHandle lock = billing.acquire("own")) {
            LockHolder holder = holder(billing.inspect("own"), LockMode.EXCLUSIVE);
            assertThat(holder.owner()).isEqualTo("thread " + Thread.currentThread().getName());
            assertThat(holder.since()).isNotNull();
            assertThat(holder.fencingToken()).isEqualTo(lock.fencingToken());
        }
    }

    @Test
    void aFreeKeyAndAReleasedLockShowNothing() {
        RedisLockService billing = service("billing");
        RedisLockService shipping = service("shipping");
        assertThat(shipping.inspect("never-used")).isEmpty();
        billing.acquire("released").release(); // the key keeps its last token: still nobody's
        assertThat(shipping.inspect("released")).isEmpty();
        LockHandle reentered = billing.acquire("reentered", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        try (LockHandle inner = billing.acquire("reentered")) {
            // the hash form: a fixed lease and a watched re-entry
            LockHolder holder = holder(shipping.inspect("reentered"), LockMode.EXCLUSIVE);
            assertThat(holder.holdCount()).isEqualTo(2);
            assertThat(holder.fencingToken()).isEqualTo(inner.fencingToken());
        }
        reentered.release();
        assertThat(shipping.inspect("reentered")).isEmpty();
    }

    @Test
    void aLostLeaseShowsTheLockFree(RedisNode redis) {
        RedisLockService billing = service("billing");
        RedisLockService shipping = service("shipping");
        LockHandle lock = billing.acquire("lost");
        assertThat(shipping.inspect("lost")).hasSize(1);
        redis.call("DEL", "distlock:{lost}:lock"); // evicted, or lost in a restart
        assertThat(shipping.inspect("lost")).isEmpty();
        Await.until(Duration.ofSeconds(10), () -> !lock.isHeld(), "the holder learns of the loss at renewal");
    }

    @Test
    void aFairLocksQueueNamesItsWaitersInstancesInOrder() throws Exception {
        RedisLockService billing = service("billing");
        RedisLockService second = service("second");
        RedisLockService third = service("third");
        LockOptions fair = LockOptions.defaults().withMode(LockMode.FAIR).withWaitTime(Duration.ofSeconds(20));
        LockHandle held = billing.acquire("fair", fair);
        CompletableFuture<LockHandle> first = CompletableFuture.supplyAsync(() -> second.acquire("fair", fair));
        Await.until(Duration.ofSeconds(10), () -> status(billing.inspect("fair"), LockMode.FAIR).waiters().size() == 1,
                "the first waiter is queued");
        CompletableFuture<LockHandle> then = CompletableFuture.supplyAsync(() -> third.acquire("fair", fair));
        Await.until(Duration.ofSeconds(10), () -> status(billing.inspect("fair"), LockMode.FAIR).waiters().size() == 2,
                "the second waiter is queued");
        awaitRecords(billing, second, third);

        LockStatus state = status(third.inspect("fair"), LockMode.FAIR);
        assertThat(state.holders()).singleElement().satisfies(holder -> {
            assertThat(holder.instance().application()).isEqualTo("billing");
            assertThat(holder.fencingToken()).isEqualTo(held.fencingToken());
            assertThat(holder.since()).as("a fair grant's token is the Redis clock").isNotNull();
        });
        assertThat(state.waiters()).extracting(LockInstance::application).containsExactly("second", "third");
        assertThat(state.othersWaiting()).isTrue();
        held.release();
        first.get(20, TimeUnit.SECONDS).release();
        then.get(20, TimeUnit.SECONDS).release();
    }

    @Test
    void readersAndAWaitingWriterAreShownApart() throws Exception {
        RedisLockService billing = service("billing");
        RedisLockService shipping = service("shipping");
        RedisLockService writer = service("writer");
        LockOptions read = LockOptions.defaults().withMode(LockMode.READ);
        LockHandle one = billing.acquire("rw", read);
        LockHandle two = shipping.acquire("rw", read);
        CompletableFuture<LockHandle> write = CompletableFuture.supplyAsync(() -> writer.acquire("rw",
                LockOptions.defaults().withMode(LockMode.WRITE).withWaitTime(Duration.ofSeconds(20))));
        Await.until(Duration.ofSeconds(10), () -> writer.inspect("rw").size() == 2, "the writer's intent is recorded");
        awaitRecords(billing, shipping, writer);

        List<LockStatus> states = writer.inspect("rw");
        LockStatus readers = status(states, LockMode.READ);
        assertThat(readers.holders()).extracting(holder -> holder.instance().application())
            .containsExactlyInAnyOrder("billing", "shipping");
        assertThat(readers.holders()).extracting(LockHolder::fencingToken)
            .containsExactlyInAnyOrder(one.fencingToken(), two.fencingToken());
        assertThat(readers.holders()).allSatisfy(holder -> {
            assertThat(holder.leaseLeft()).isPositive().isLessThanOrEqualTo(LEASE);
            assertThat(holder.since()).isNotNull();
        });
        LockStatus writing = status(states, LockMode.WRITE);
        assertThat(writing.holders()).isEmpty();
        assertThat(writing.waiters()).extracting(LockInstance::application).containsExactly("writer");
        one.release();
        two.release();
        LockHandle granted = write.get(20, TimeUnit.SECONDS);
        LockHolder holder = holder(billing.inspect("rw"), LockMode.WRITE);
        assertThat(holder.instance().id()).isEqualTo(writer.instanceId());
        assertThat(holder.fencingToken()).isEqualTo(granted.fencingToken());
        granted.release();
    }

    @Test
    void aSemaphoresHoldersShowTheirPermits() {
        RedisLockService billing = service("billing");
        RedisLockService shipping = service("shipping");
        LockHandle two = billing.acquire("payments", LockOptions.defaults().withPermits(3, 2));
        LockHandle one = shipping.acquire("payments", LockOptions.defaults().withPermits(3, 1));
        assertThat(billing.tryAcquire("payments", LockOptions.defaults().withPermits(3, 1))).isEmpty();
        awaitRecords(billing, shipping);

        LockStatus state = status(shipping.inspect("payments"), LockMode.SEMAPHORE);
        assertThat(state.holders()).extracting(holder -> holder.instance().application() + " " + holder.permits()
                + " " + holder.fencingToken())
            .containsExactlyInAnyOrder("billing 2 " + two.fencingToken(), "shipping 1 " + one.fencingToken());
        two.release();
        one.release();
        assertThat(shipping.inspect("payments")).isEmpty();
    }

    /** The rules {@link RedisLockService#requiredAcl()} names are enough to inspect and to write the instance record. */
    @Test
    void aUserWithExactlyTheRequiredAclInspects(RedisNode redis) {
        RedisLockService billing = service("billing");
        redis.call(("ACL SETUSER inspector reset on >inspector-secret " + billing.requiredAcl()).split(" "));
        RedisLockService inspector = this.clients.service(template(redis, "inspector", "inspector-secret"),
                b -> b.applicationName("inspector"));
        inspector.verifyAccess();
        inspector.acquire("inspector's own").release(); // its first lock writes its record, as this user
        awaitRecords(inspector);
        try (LockHandle lock = billing.acquire("acl")) {
            awaitRecords(billing);
            LockHolder holder = holder(inspector.inspect("acl"), LockMode.EXCLUSIVE);
            assertThat(holder.instance().application()).isEqualTo("billing");
            assertThat(holder.fencingToken()).isEqualTo(lock.fencingToken());
        }
    }

    /**
     * Nothing is added to a lock cycle: the commands Redis runs per cycle are the two scripts' (EVALSHA, and inside
     * them GET and SET), and the instance
     * record's refresh (one PEXPIRE per renewal interval while the long holds stay the same) is apart from them.
     */
    @Test
    void aLockCycleSendsNoMoreThanItsTwoScripts(RedisNode redis) {
        RedisLockService billing = this.clients.service(b -> b.applicationName("billing"));
        billing.acquire("warm-up").release(); // and its instance record's first write
        Await.until(Duration.ofSeconds(10),
                () -> Long.parseLong(redis.call("PTTL", "distlock:instance:" + billing.instanceId())) > 0,
                "the record is written whole (its PEXPIRE comes last)");
        int cycles = 500;
        redis.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < cycles; i++) {
            billing.acquire("cycle").release();
        }
        Map<String, Long> calls = calls(redis.call("INFO", "commandstats"));
        assertThat(calls.get("evalsha")).as("two scripts per cycle").isEqualTo(2L * cycles);
        // inside the scripts: the lock hash's HMGET, HSET, HDEL and PEXPIRE (one a side), the freed mark's GET and SET
        // and the Redis clock; beside them at most one refresh of the record (its interval is 10 s here): one PEXPIRE
        assertThat(calls.keySet()).isSubsetOf("evalsha", "hmget", "hset", "hdel", "pexpire", "get", "set", "time",
                "config|resetstat");
        assertThat(calls.getOrDefault("pexpire", 0L)).isLessThanOrEqualTo(2L * cycles + 1);
    }

    /**
     * Waits until each service's instance record exists: a service writes it off the caller's thread after its first
     * call, and until then {@code inspect} cannot name the service's holds and waits.
     */
    private void awaitRecords(RedisLockService... services) {
        StringRedisTemplate redis = this.clients.template();
        for (RedisLockService service : services) {
            Await.until(Duration.ofSeconds(10), () -> redis.hasKey("distlock:instance:" + service.instanceId()),
                    "the instance record of " + service.instanceId());
        }
    }

    /** INFO commandstats as calls per command. */
    private static Map<String, Long> calls(String commandStats) {
        Map<String, Long> calls = new java.util.HashMap<>();
        for (String line : commandStats.split("\n")) {
            int at = line.indexOf(":calls=");
            if (line.startsWith("cmdstat_") && at > 0) {
                calls.put(line.substring(8, at), Long.parseLong(line.substring(at + 7, line.indexOf(',', at))));
            }
        }
        return calls;
    }

    private CountDownLatch holdOnThread(String threadName, java.util.function.Supplier<LockHandle> acquire,
            AtomicReference<LockHandle> held) throws InterruptedException {
        CountDownLatch granted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread thread = new Thread(() -> {
            try (LockHandle lock = acquire.get()) {
                held.set(lock);
                granted.countDown();
                release.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, threadName);
        thread.start();
        this.releases.add(release::countDown);
        assertThat(granted.await(10, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    private StringRedisTemplate template(RedisNode redis, String user, String password) {
        RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", redis.port());
        configuration.setUsername(user);
        configuration.setPassword(password);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        this.cleanUps.add(factory::destroy);
        return new StringRedisTemplate(factory);
    }

    private static Map<String, String> hash(RedisNode redis, String name) {
        // a string of "<field> <value>" lines, read here without the service's own reader
        Map<String, String> fields = new java.util.LinkedHashMap<>();
        for (String line : redis.call("GET", name).split("\n")) {
            fields.put(line.substring(0, line.indexOf(' ')), line.substring(line.indexOf(' ') + 1));
        }
        return fields;
    }

    private static LockStatus status(List<LockStatus> states, LockMode mode) {
        return states.stream().filter(state -> state.mode() == mode).findFirst()
            .orElseThrow(() -> new AssertionError("no " + mode + " in " + states));
    }

    private static LockHolder holder(List<LockStatus> states, LockMode mode) {
        List<LockHolder> holders = status(states, mode).holders();
        assertThat(holders).hasSize(1);
        return holders.get(0);
    }
}
