package dev.distlock.redis;

import static dev.distlock.redis.DataLayoutSnapshot.HOLD_ID;
import static dev.distlock.redis.DataLayoutSnapshot.PERSISTENT;
import static dev.distlock.redis.DataLayoutSnapshot.TOKEN;
import static dev.distlock.redis.DataLayoutSnapshot.is;
import static dev.distlock.redis.DataLayoutSnapshot.matches;
import static dev.distlock.redis.DataLayoutSnapshot.msFromNow;
import static dev.distlock.redis.DataLayoutSnapshot.ttl;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Holds the Lua scripts to docs/data-layout.md ("layout 1"): for each lock type, operations run through the public API
 * against a real Redis, and after each, exactly what Redis holds (every key, its type, its fields or members and their
 * values in the documented formats, its expiry) is compared with the specification. A change of the layout that is not
 * made in the specification (and here) fails. Every expiry rule has its own length, so that a key's PTTL says which
 * rule set it: watchdog lease 20 s, fixed lease 47 s, token retention 13 s, waiter lease 7 s, release delay 31 s.
 */
@RedisTest
class DataLayoutTest {

    static final long WATCHDOG_LEASE = 20_000;

    static final long FIXED_LEASE = 47_000;

    static final long RETENTION = 13_000;

    static final long WAITER_LEASE = 7_000;

    static final long DELAY = 31_000;

    private static final Duration WAIT = Duration.ofSeconds(5);

    private RedisNode redis;

    private RedisClients clients;

    private StringRedisTemplate data;

    private RedisClient pubSubClient;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.data = this.clients.template();
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
        if (this.pubSubClient != null) {
            this.pubSubClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** A service with the layout's test settings, prefix {@code dl}. */
    static UnaryOperator<RedisLockServiceBuilder> settings() {
        return builder -> builder.keyPrefix("dl")
            .watchdogLease(Duration.ofMillis(WATCHDOG_LEASE))
            .renewalInterval(Duration.ofMillis(250))
            .tokenRetention(Duration.ofMillis(RETENTION))
            .waiterLease(Duration.ofMillis(WAITER_LEASE));
    }

    private RedisLockService service() {
        return this.clients.service(settings());
    }

    private DataLayoutSnapshot snapshot() {
        return DataLayoutSnapshot.read(this.data);
    }

    private static LockOptions owner(String owner) {
        return LockOptions.defaults().withOwner(owner);
    }

    @Test
    void exclusiveLockCycleIsOneStringAndAFreeLockKeepsItsTokens() {
        RedisLockService locks = service();
        LockHandle first = locks.acquire("k", owner("a"));
        String a = first.ownerToken();
        long token = first.fencingToken();
        DataLayoutSnapshot held = snapshot();
        String holdId = held.groups("dl:{k}:lock", a + " (" + HOLD_ID + ") " + token + " " + token)[1];
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is(a + " " + holdId + " " + token + " " + token), ttl(WATCHDOG_LEASE))
            .check(held);

        // renewal: the watchdog sets the string's expiry back to the lease; the value stays
        this.data.expire("dl:{k}:lock", Duration.ofSeconds(5));
        Await.until(WAIT, () -> this.data.getExpire("dl:{k}:lock", TimeUnit.MILLISECONDS) > WATCHDOG_LEASE - 3_000,
                "the watchdog renewed the lock");
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is(a + " " + holdId + " " + token + " " + token), ttl(WATCHDOG_LEASE))
            .check(snapshot());

        first.release();
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is(token + " " + token), ttl(RETENTION))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());

        LockHandle second = locks.acquire("k", owner("b"));
        String b = second.ownerToken();
        assertThat(second.fencingToken()).isEqualTo(token + 1);
        String secondHold = snapshot().groups("dl:{k}:lock", b + " (" + HOLD_ID + ") " + (token + 1) + " " + token)[1];
        assertThat(Long.parseLong(secondHold)).isGreaterThan(Long.parseLong(holdId));
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is(b + " " + secondHold + " " + (token + 1) + " " + token), ttl(WATCHDOG_LEASE))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());

        second.release();
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is((token + 1) + " " + token), ttl(RETENTION))
            .string("dl:{k}:lock:freed", is(b + " " + secondHold), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void aReentryTurnsTheStringIntoTheHashAndTheNextWatchedGrantTurnsItBack() {
        RedisLockService locks = service();
        LockHandle outer = locks.acquire("k", owner("a"));
        String a = outer.ownerToken();
        long token = outer.fencingToken();
        String outerHold = snapshot().groups("dl:{k}:lock", a + " (" + HOLD_ID + ") .*")[1];

        LockHandle inner = locks.acquire("k", owner("a"));
        assertThat(inner.fencingToken()).isEqualTo(token);
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), is("owner"), is(a), is("holds"), is("2"), is(a), is("2"),
                    is(outerHold), is("w"), matches(HOLD_ID), is("w"), is("fence"), is(Long.toString(token)),
                    is("chain"), is(Long.toString(token)))
            .check(snapshot());

        inner.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), is("owner"), is(a), is("holds"), is("1"), is(a), is("1"),
                    is(outerHold), is("w"), is("fence"), is(Long.toString(token)), is("chain"),
                    is(Long.toString(token)))
            .check(snapshot());

        outer.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(RETENTION), is("fence"), is(Long.toString(token)), is("chain"),
                    is(Long.toString(token)))
            .string("dl:{k}:lock:freed", is(a + " " + outerHold), ttl(RETENTION))
            .check(snapshot());

        // a watched grant of the free hash turns it back into the string (single-hold.lua's header says it never does)
        LockHandle next = locks.acquire("k", owner("b"));
        String b = next.ownerToken();
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", matches(b + " " + HOLD_ID + " " + (token + 1) + " " + token), ttl(WATCHDOG_LEASE))
            .string("dl:{k}:lock:freed", is(a + " " + outerHold), ttl(RETENTION))
            .check(snapshot());
        next.release();
    }

    @Test
    void aFixedLeaseIsTheHashWithItsLeaseEndAndTheLastHoldKeepsTheLongestLease() {
        RedisLockService locks = service();
        LockHandle fixed = locks.acquire("k", owner("f").withLeaseTime(Duration.ofMillis(FIXED_LEASE)));
        String f = fixed.ownerToken();
        String token = Long.toString(fixed.fencingToken());
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(FIXED_LEASE), is("owner"), is(f), is("holds"), is("1"), matches(HOLD_ID),
                    msFromNow(FIXED_LEASE), is("fence"), is(token), is("chain"), is(token))
            .check(snapshot());

        // a watched re-entry adds its 'w' hold and the owner-token count; the longer fixed expiry is not shortened
        LockHandle watched = locks.acquire("k", owner("f"));
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(FIXED_LEASE), is("owner"), is(f), is("holds"), is("2"), is(f), is("1"),
                    matches(HOLD_ID), msFromNow(FIXED_LEASE), matches(HOLD_ID), is("w"), is("fence"), is(token),
                    is("chain"), is(token))
            .check(snapshot());

        watched.release(); // no watched hold is left: the count goes, the hash expires at the fixed lease's end
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(FIXED_LEASE), is("owner"), is(f), is("holds"), is("1"), matches(HOLD_ID),
                    msFromNow(FIXED_LEASE), is("fence"), is(token), is("chain"), is(token))
            .check(snapshot());

        fixed.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(RETENTION), is("fence"), is(token), is("chain"), is(token))
            .string("dl:{k}:lock:freed", matches(f + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void aRefusedWaiterMarksTheStringAndTheReleasePublishesTheClientId() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:released");
        RedisLockService holderService = service();
        LockHandle holder = holderService.acquire("k", owner("a"));
        String a = holder.ownerToken();
        long token = holder.fencingToken();
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async()
            .acquire("k", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter's refusal marked the lock");
        String holdId = snapshot().groups("dl:{k}:lock", a + " (" + HOLD_ID + ") .*")[1];
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is(a + " " + holdId + " " + token + " " + token + " w"), ttl(WATCHDOG_LEASE))
            .check(snapshot());
        assertThat(messages).as("nothing published before the release").isEmpty();

        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("the release message: the releasing client's id")
            .matches("[0-9a-f]{16}");
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", matches(next.ownerToken() + " " + HOLD_ID + " " + next.fencingToken() + " " + token),
                    ttl(WATCHDOG_LEASE))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());
        next.release();
    }

    @Test
    void aRefusedWaiterSetsTheHashsWaitingFieldAndTheReleaseClearsIt() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:released");
        LockHandle holder = service().acquire("k", owner("a").withLeaseTime(Duration.ofMillis(FIXED_LEASE)));
        String a = holder.ownerToken();
        String token = Long.toString(holder.fencingToken());
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async()
            .acquire("k", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter's refusal marked the lock");
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(FIXED_LEASE), is("owner"), is(a), is("holds"), is("1"), matches(HOLD_ID),
                    msFromNow(FIXED_LEASE), is("fence"), is(token), is("chain"), is(token), is("waiting"), is("1"))
            .check(snapshot());

        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16}");
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", matches(next.ownerToken() + " " + HOLD_ID + " " + next.fencingToken() + " " + token),
                    ttl(WATCHDOG_LEASE))
            .string("dl:{k}:lock:freed", matches(a + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());
        next.release();
    }

    @Test
    void aHandOffFromTheHashWritesTheNewHoldersStringAndTheFreedMark() throws Exception {
        List<LockEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(builder -> settings().apply(builder).listener(events::add));
        LockHandle holder = locks.acquire("k", owner("a").withLeaseTime(Duration.ofMillis(FIXED_LEASE)));
        String a = holder.ownerToken();
        String token = Long.toString(holder.fencingToken());
        String holdId = snapshot().entry("dl:{k}:lock").fields().keySet().stream()
            .filter(field -> field.matches(HOLD_ID)).findFirst().orElseThrow();
        CompletableFuture<LockHandle> waiter = waitInThread(locks, owner("b"), events);
        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(events).as("the lock was handed off").anyMatch(LockEvent.HandedOff.class::isInstance);
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", matches(next.ownerToken() + " " + HOLD_ID + " " + next.fencingToken() + " " + token),
                    ttl(WATCHDOG_LEASE))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());
        assertThat(next.fencingToken()).isEqualTo(holder.fencingToken() + 1);
        next.release();
    }

    @Test
    void aHandOffOfTheStringKeepsTheRunAndAnotherProcesssWaitingMark() throws Exception {
        List<LockEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(builder -> settings().apply(builder)
            .handOffLimit(16, Duration.ofSeconds(30)) // no run's bound: hand off though another process waits
            .listener(events::add));
        LockHandle holder = locks.acquire("k", owner("a"));
        String a = holder.ownerToken();
        long token = holder.fencingToken();
        String holdId = snapshot().groups("dl:{k}:lock", a + " (" + HOLD_ID + ") .*")[1];
        long before = snapshot().size();
        CompletableFuture<LockHandle> elsewhere = service().async()
            .acquire("k", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the other process's waiter marked the lock");
        CompletableFuture<LockHandle> local = waitInThread(locks, owner("b"), events);
        holder.release();
        LockHandle next = local.get(10, TimeUnit.SECONDS);
        assertThat(events).as("the lock was handed off").anyMatch(LockEvent.HandedOff.class::isInstance);
        assertThat(next.fencingToken()).isEqualTo(token + 1);
        DataLayoutSnapshot handedOff = snapshot();
        String nextHold = handedOff.groups("dl:{k}:lock", next.ownerToken() + " (" + HOLD_ID + ") .*")[1];
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", is(next.ownerToken() + " " + nextHold + " " + (token + 1) + " " + token + " w"),
                    ttl(WATCHDOG_LEASE))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(handedOff);
        next.release();
        elsewhere.get(10, TimeUnit.SECONDS).release();
    }

    /** Acquires in a thread of its own, returning once the call waits in the service's local queue. */
    private static CompletableFuture<LockHandle> waitInThread(RedisLockService locks, LockOptions options,
            List<LockEvent> events) {
        CompletableFuture<LockHandle> waiter = new CompletableFuture<>();
        long acquiring = events.stream().filter(LockEvent.Acquiring.class::isInstance).count();
        Thread waiting = new Thread(() -> {
            try {
                waiter.complete(locks.acquire("k", options.withWaitTime(Duration.ofSeconds(10))));
            }
            catch (RuntimeException ex) {
                waiter.completeExceptionally(ex);
            }
        });
        waiting.start();
        // it queues in its service, which holds the lock: it sends Redis nothing until the hand-off
        Await.until(WAIT, () -> events.stream().filter(LockEvent.Acquiring.class::isInstance).count() > acquiring
                && (waiting.getState() == Thread.State.WAITING || waiting.getState() == Thread.State.TIMED_WAITING),
                "the waiter queued");
        return waiter;
    }

    @Test
    void aDelayedReleaseOfAReaderOrAPermitKeepsItCountedUntilTheDelayEnds() {
        RedisLockService locks = service();
        LockHandle reader = locks.acquire("r", LockOptions.defaults().withMode(LockMode.READ));
        LockHandle permit = locks.acquire("s", LockOptions.defaults().withPermits(2));
        String r = reader.ownerToken();
        String p = permit.ownerToken();
        reader.releaseAfter(Duration.ofMillis(DELAY));
        permit.releaseAfter(Duration.ofMillis(DELAY));
        DataLayoutSnapshot.expect()
            .zset("dl:{r}:rw:readers", ttl(DELAY), is(r), msFromNow(DELAY))
            .hash("dl:{r}:rw:reader:" + r, ttl(DELAY), is("released"), is("1"))
            .string("dl:{r}:rw:fence", is(Long.toString(reader.fencingToken())), ttl(RETENTION))
            .zset("dl:{s}:sem:leases", ttl(DELAY), is(p), msFromNow(DELAY))
            .hash("dl:{s}:sem:permits", ttl(DELAY), is(p), is("1"), is("count"), is("1"))
            .hash("dl:{s}:sem:holder:" + p, ttl(DELAY), is("released"), is("1"))
            .string("dl:{s}:sem:fence", is(Long.toString(permit.fencingToken())), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void waitersThatGiveUpLeaveNoPlaceBehind() throws Exception {
        RedisLockService locks = service();
        LockHandle fair = locks.acquire("f", LockOptions.defaults().withMode(LockMode.FAIR));
        LockHandle read = locks.acquire("w", LockOptions.defaults().withMode(LockMode.READ));
        DataLayoutSnapshot held = snapshot();
        RedisLockService other = service();
        CompletableFuture<LockHandle> fairWaiter = other.async()
            .acquire("f", LockOptions.defaults().withMode(LockMode.FAIR).withWaitTime(Duration.ofMillis(500)));
        CompletableFuture<LockHandle> writer = other.async()
            .acquire("w", LockOptions.defaults().withMode(LockMode.WRITE).withWaitTime(Duration.ofMillis(500)));
        // the fair waiter: two keys of one member each; the writer: one key of 32 characters
        awaitGrowth(held.size() + 4 + 1 + 32 - 1, "the fair waiter's place and the writer's intent");
        assertThat(fairWaiter).failsWithin(Duration.ofSeconds(10));
        assertThat(writer).failsWithin(Duration.ofSeconds(10));
        // the places are given up off the caller's thread: wait until Redis holds what it held before the waits
        Await.until(WAIT, () -> snapshot().size() == held.size(), "the waiters left their places");
        DataLayoutSnapshot.expect()
            .hash("dl:{f}:fair:lock", ttl(WATCHDOG_LEASE), is("owner"), is(fair.ownerToken()), is("holds"), is("1"),
                    is(fair.ownerToken()), is("1"), matches(HOLD_ID), is("w"), is("fence"),
                    is(Long.toString(fair.fencingToken())), is("chain"), is(Long.toString(fair.fencingToken())))
            .zset("dl:{w}:rw:readers", ttl(WATCHDOG_LEASE), is(read.ownerToken()), msFromNow(WATCHDOG_LEASE))
            .hash("dl:{w}:rw:reader:" + read.ownerToken(), ttl(WATCHDOG_LEASE), is("fence"),
                    is(Long.toString(read.fencingToken())), is("holds"), is("1"), is("watched"), is("1"),
                    matches(HOLD_ID), is("w"))
            .string("dl:{w}:rw:fence", is(Long.toString(read.fencingToken())), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void aDelayedReleaseLeavesTheHashReleasedUntilTheDelayEnds() {
        RedisLockService locks = service();
        LockHandle holder = locks.acquire("k", owner("a"));
        String a = holder.ownerToken();
        String token = Long.toString(holder.fencingToken());
        String holdId = snapshot().groups("dl:{k}:lock", a + " (" + HOLD_ID + ") .*")[1];
        holder.releaseAfter(Duration.ofMillis(DELAY));
        DataLayoutSnapshot.Expected released = DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(DELAY), is("owner"), is("(released)"), is("released"), is(a), is("until"),
                    msFromNow(DELAY), is("holds"), is("0"), is("fence"), is(token), is("chain"), is(token))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(DELAY));
        released.check(snapshot());

        // a refused try that does not wait writes nothing
        assertThat(service().tryAcquire("k", LockOptions.defaults())).isEmpty();
        released.check(snapshot());
    }

    @Test
    void aFairLockQueuesWaitersAndTheReleaseNamesTheFirst() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:fair:released");
        LockOptions fair = LockOptions.defaults().withMode(LockMode.FAIR);
        LockHandle holder = service().acquire("k", fair);
        String a = holder.ownerToken();
        String token = Long.toString(holder.fencingToken());
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async().acquire("k", fair.withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter queued");
        DataLayoutSnapshot queued = snapshot();
        String b = queued.entry("dl:{k}:fair:queue").fields().keySet().iterator().next();
        String holdId = queued.entry("dl:{k}:fair:lock").fields().keySet().stream()
            .filter(field -> field.matches(HOLD_ID)).findFirst().orElseThrow();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:fair:lock", ttl(WATCHDOG_LEASE), is("owner"), is(a), is("holds"), is("1"), is(a), is("1"),
                    is(holdId), is("w"), is("fence"), is(token), is("chain"), is(token))
            .zset("dl:{k}:fair:queue", ttl(WAITER_LEASE), matches(TOKEN), is("1"))
            .zset("dl:{k}:fair:places", ttl(WAITER_LEASE), is(b), msFromNow(WAITER_LEASE))
            .check(queued);

        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(next.ownerToken()).isEqualTo(b);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("the release names the first waiter").isEqualTo(b);
        String nextToken = Long.toString(next.fencingToken());
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:fair:lock", ttl(WATCHDOG_LEASE), is("owner"), is(b), is("holds"), is("1"), is(b), is("1"),
                    matches(HOLD_ID), is("w"), is("fence"), is(nextToken), is("chain"), is(token))
            .string("dl:{k}:fair:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());

        next.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:fair:lock", ttl(RETENTION), is("fence"), is(nextToken), is("chain"), is(token))
            .string("dl:{k}:fair:lock:freed", matches(b + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void readersAreASortedSetAndAHashEachAndAWaitingWriterLeavesItsIntent() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:rw:released");
        RedisLockService locks = service();
        LockOptions read = LockOptions.defaults().withMode(LockMode.READ);
        LockHandle first = locks.acquire("k", read.withOwner("r1"));
        LockHandle second = locks.acquire("k", read.withOwner("r2"));
        String r1 = first.ownerToken();
        String r2 = second.ownerToken();
        String t1 = Long.toString(first.fencingToken());
        String t2 = Long.toString(second.fencingToken());
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        DataLayoutSnapshot.expect()
            .zset("dl:{k}:rw:readers", ttl(WATCHDOG_LEASE), is(r1), msFromNow(WATCHDOG_LEASE), is(r2),
                    msFromNow(WATCHDOG_LEASE))
            .hash("dl:{k}:rw:reader:" + r1, ttl(WATCHDOG_LEASE), is("fence"), is(t1), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .hash("dl:{k}:rw:reader:" + r2, ttl(WATCHDOG_LEASE), is("fence"), is(t2), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .string("dl:{k}:rw:fence", is(t2), ttl(RETENTION))
            .check(snapshot());

        // renewal moves a reader's score (its lease end) forward
        double score = this.data.opsForZSet().score("dl:{k}:rw:readers", r1);
        Await.until(WAIT, () -> this.data.opsForZSet().score("dl:{k}:rw:readers", r1) > score, "a reader renewed");

        long before = snapshot().size();
        CompletableFuture<LockHandle> writer = service().async()
            .acquire("k", LockOptions.defaults().withMode(LockMode.WRITE).withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the writer's intent");
        DataLayoutSnapshot.expect()
            .zset("dl:{k}:rw:readers", ttl(WATCHDOG_LEASE), is(r1), msFromNow(WATCHDOG_LEASE), is(r2),
                    msFromNow(WATCHDOG_LEASE))
            .hash("dl:{k}:rw:reader:" + r1, ttl(WATCHDOG_LEASE), is("fence"), is(t1), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .hash("dl:{k}:rw:reader:" + r2, ttl(WATCHDOG_LEASE), is("fence"), is(t2), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .string("dl:{k}:rw:fence", is(t2), ttl(RETENTION))
            .string("dl:{k}:rw:intent", matches(TOKEN), ttl(WAITER_LEASE))
            .check(snapshot());

        first.release(); // another reader remains: no message
        second.release(); // the last reader publishes
        LockHandle write = writer.get(10, TimeUnit.SECONDS);
        String w = write.ownerToken();
        String tw = Long.toString(write.fencingToken());
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16}");
        assertThat(messages).isEmpty();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:rw:reader:" + r1, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:rw:reader:" + r2, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:rw:write", ttl(WATCHDOG_LEASE), is("owner"), is(w), is("holds"), is("1"), is(w), is("1"),
                    matches(HOLD_ID), is("w"), is("fence"), is(tw), is("chain"), is(tw))
            .string("dl:{k}:rw:fence", is(tw), ttl(RETENTION))
            .check(snapshot());

        write.release(); // a writer's release always publishes
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16}");
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:rw:reader:" + r1, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:rw:reader:" + r2, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:rw:write", ttl(RETENTION), is("fence"), is(tw), is("chain"), is(tw))
            .string("dl:{k}:rw:write:freed", matches(w + " " + HOLD_ID), ttl(RETENTION))
            .string("dl:{k}:rw:fence", is(tw), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void aSemaphoreCountsPermitsPerHolderAndMarksARefusedWaiter() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:sem:released");
        RedisLockService locks = service();
        LockHandle one = locks.acquire("k", LockOptions.defaults().withPermits(3));
        LockHandle two = locks.acquire("k", LockOptions.defaults().withPermits(3, 2));
        String h1 = one.ownerToken();
        String h2 = two.ownerToken();
        String t1 = Long.toString(one.fencingToken());
        String t2 = Long.toString(two.fencingToken());
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async()
            .acquire("k", LockOptions.defaults().withPermits(3).withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter's refusal marked the semaphore");
        DataLayoutSnapshot.expect()
            .zset("dl:{k}:sem:leases", ttl(WATCHDOG_LEASE), is(h1), msFromNow(WATCHDOG_LEASE), is(h2),
                    msFromNow(WATCHDOG_LEASE))
            .hash("dl:{k}:sem:permits", ttl(WATCHDOG_LEASE), is(h1), is("1"), is(h2), is("2"), is("count"), is("3"),
                    is("waiting"), is("1"))
            .hash("dl:{k}:sem:holder:" + h1, ttl(WATCHDOG_LEASE), is("fence"), is(t1), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .hash("dl:{k}:sem:holder:" + h2, ttl(WATCHDOG_LEASE), is("fence"), is(t2), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .string("dl:{k}:sem:fence", is(t2), ttl(RETENTION))
            .check(snapshot());

        one.release();
        LockHandle three = waiter.get(10, TimeUnit.SECONDS);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16}");
        String h3 = three.ownerToken();
        String t3 = Long.toString(three.fencingToken());
        DataLayoutSnapshot.expect()
            .zset("dl:{k}:sem:leases", ttl(WATCHDOG_LEASE), is(h2), msFromNow(WATCHDOG_LEASE), is(h3),
                    msFromNow(WATCHDOG_LEASE))
            .hash("dl:{k}:sem:permits", ttl(WATCHDOG_LEASE), is(h2), is("2"), is(h3), is("1"), is("count"), is("3"))
            .hash("dl:{k}:sem:holder:" + h1, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:sem:holder:" + h2, ttl(WATCHDOG_LEASE), is("fence"), is(t2), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .hash("dl:{k}:sem:holder:" + h3, ttl(WATCHDOG_LEASE), is("fence"), is(t3), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .string("dl:{k}:sem:fence", is(t3), ttl(RETENTION))
            .check(snapshot());

        two.release(); // nobody waits: nothing published
        three.release(); // the last holder: the permits hash goes
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:sem:holder:" + h1, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:sem:holder:" + h2, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:sem:holder:" + h3, ttl(RETENTION), is("released"), is("1"))
            .string("dl:{k}:sem:fence", is(t3), ttl(RETENTION))
            .check(snapshot());
        assertThat(messages).isEmpty();
    }

    @Test
    void aFairSemaphoreQueuesItsWaiters() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:sem:released");
        LockOptions fair = LockOptions.defaults().withMode(LockMode.FAIR).withPermits(1);
        LockHandle holder = service().acquire("k", fair);
        String h1 = holder.ownerToken();
        String t1 = Long.toString(holder.fencingToken());
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async().acquire("k", fair.withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter queued");
        DataLayoutSnapshot queued = snapshot();
        String h2 = queued.entry("dl:{k}:sem:queue").fields().keySet().iterator().next();
        DataLayoutSnapshot.expect()
            .zset("dl:{k}:sem:leases", ttl(WATCHDOG_LEASE), is(h1), msFromNow(WATCHDOG_LEASE))
            .hash("dl:{k}:sem:permits", ttl(WATCHDOG_LEASE), is(h1), is("1"), is("count"), is("1"), is("waiting"),
                    is("1"))
            .hash("dl:{k}:sem:holder:" + h1, ttl(WATCHDOG_LEASE), is("fence"), is(t1), is("holds"), is("1"),
                    is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .string("dl:{k}:sem:fence", is(t1), ttl(RETENTION))
            .zset("dl:{k}:sem:queue", ttl(WAITER_LEASE), matches(TOKEN), is("1"))
            .zset("dl:{k}:sem:places", ttl(WAITER_LEASE), is(h2), msFromNow(WAITER_LEASE))
            .check(queued);

        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(next.ownerToken()).isEqualTo(h2);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16}");
        DataLayoutSnapshot.expect()
            .zset("dl:{k}:sem:leases", ttl(WATCHDOG_LEASE), is(h2), msFromNow(WATCHDOG_LEASE))
            .hash("dl:{k}:sem:permits", ttl(WATCHDOG_LEASE), is(h2), is("1"), is("count"), is("1"))
            .hash("dl:{k}:sem:holder:" + h1, ttl(RETENTION), is("released"), is("1"))
            .hash("dl:{k}:sem:holder:" + h2, ttl(WATCHDOG_LEASE), is("fence"), is(Long.toString(next.fencingToken())),
                    is("holds"), is("1"), is("watched"), is("1"), matches(HOLD_ID), is("w"))
            .string("dl:{k}:sem:fence", is(Long.toString(next.fencingToken())), ttl(RETENTION))
            .check(snapshot());
        next.release();
    }

    @Test
    void aMultiKeyLockIsOneExclusiveLockPerKey() {
        MultiLockHandle both = service().acquireAll(List.of("m2", "m1"), LockOptions.defaults());
        LockHandle m1 = both.members().get(0);
        LockHandle m2 = both.members().get(1);
        assertThat(m1.key()).isEqualTo("m1");
        DataLayoutSnapshot.expect()
            .string("dl:{m1}:lock", matches(m1.ownerToken() + " " + HOLD_ID + " " + m1.fencingToken() + " "
                    + m1.fencingToken()), ttl(WATCHDOG_LEASE))
            .string("dl:{m2}:lock", matches(m2.ownerToken() + " " + HOLD_ID + " " + m2.fencingToken() + " "
                    + m2.fencingToken()), ttl(WATCHDOG_LEASE))
            .check(snapshot());
        both.release();
        DataLayoutSnapshot.expect()
            .string("dl:{m1}:lock", is(m1.fencingToken() + " " + m1.fencingToken()), ttl(RETENTION))
            .string("dl:{m1}:lock:freed", matches(m1.ownerToken() + " " + HOLD_ID), ttl(RETENTION))
            .string("dl:{m2}:lock", is(m2.fencingToken() + " " + m2.fencingToken()), ttl(RETENTION))
            .string("dl:{m2}:lock:freed", matches(m2.ownerToken() + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void theRestartGraceMarkerIsOnePersistentKeyPerServer() {
        // the marker is written once the server is older than the grace; its uptime is counted in whole seconds
        Await.until(WAIT, () -> uptimeSeconds() >= 2, "the server is 2 s old");
        RedisLockService locks = this.clients.service(builder -> settings().apply(builder)
            .restartGrace(Duration.ofMillis(1)));
        LockHandle lock = locks.acquire("k", LockOptions.defaults());
        DataLayoutSnapshot.expect()
            .string("dl:{k}:lock", matches(lock.ownerToken() + " " + HOLD_ID + " " + lock.fencingToken() + " "
                    + lock.fencingToken()), ttl(WATCHDOG_LEASE))
            .string("dl:restart-grace", is("1"), PERSISTENT)
            .check(snapshot());
        lock.release();
    }

    /** Waits until Redis holds more than {@code size} (see {@link DataLayoutSnapshot#size()}). */
    private void awaitGrowth(long size, String what) {
        Await.until(WAIT, () -> snapshot().size() > size, what);
    }

    private long uptimeSeconds() {
        String info = this.redis.call("INFO", "server").toString();
        java.util.regex.Matcher uptime = java.util.regex.Pattern.compile("uptime_in_seconds:(\\d+)").matcher(info);
        return uptime.find() ? Long.parseLong(uptime.group(1)) : 0;
    }

    /** Subscribes (classic pub/sub) to a release channel and returns the messages as they come. */
    private BlockingQueue<String> subscribe(String channel) {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        this.pubSubClient = RedisClient.create(RedisURI.create("127.0.0.1", this.redis.port()));
        StatefulRedisPubSubConnection<String, String> connection = this.pubSubClient.connectPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                if (from.equals(channel)) {
                    messages.add(message);
                }
            }
        });
        connection.sync().subscribe(channel);
        return messages;
    }
}
