package dev.distlock.redis;

import static dev.distlock.redis.DataLayoutSnapshot.HOLD_ID;
import static dev.distlock.redis.DataLayoutSnapshot.PERSISTENT;
import static dev.distlock.redis.DataLayoutSnapshot.is;
import static dev.distlock.redis.DataLayoutSnapshot.matches;
import static dev.distlock.redis.DataLayoutSnapshot.msFromNow;
import static dev.distlock.redis.DataLayoutSnapshot.ttl;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.Await;

/**
 * Holds the Lua scripts to docs/data-layout.md ("layout 1"), for the exclusive lock (its hash, waiting marks,
 * hand-offs, delayed release), multi-key locks and the restart-grace marker: operations run through the public API
 * against a real Redis, and after each, exactly what Redis holds (every key, its type, its fields and their values in
 * the documented formats, its expiry) is compared with the specification. A change of the layout not made in the
 * specification (and here) fails. {@link DataLayoutOtherTypesTest} does the same for the other lock types.
 */
class DataLayoutTest extends DataLayoutSupport {

    @Test
    void exclusiveLockCycleIsTheHashAndAFreeLockKeepsItsTokens() {
        RedisLockService locks = service();
        LockHandle first = locks.acquire("k", owner("a"));
        String a = first.ownerToken();
        long token = first.fencingToken();
        DataLayoutSnapshot held = snapshot();
        String holdId = holdId(held);
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(a, holdId, token, token, false))
            .check(held);

        // renewal: the watchdog extends the hash's expiry back to the lease; the fields stay
        this.data.expire("dl:{k}:lock", Duration.ofSeconds(5));
        Await.until(WAIT, () -> this.data.getExpire("dl:{k}:lock", TimeUnit.MILLISECONDS) > WATCHDOG_LEASE - 3_000,
                "the watchdog renewed the lock");
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(a, holdId, token, token, false))
            .check(snapshot());

        first.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(RETENTION), free(token, token))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());

        LockHandle second = locks.acquire("k", owner("b"));
        String b = second.ownerToken();
        assertThat(second.fencingToken()).isEqualTo(token + 1);
        String secondHold = holdId(snapshot());
        assertThat(Long.parseLong(secondHold)).isGreaterThan(Long.parseLong(holdId));
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(b, secondHold, token + 1, token, false))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());

        second.release(); // the freed mark keeps the newest releases first (at most 8)
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(RETENTION), free(token + 1, token))
            .string("dl:{k}:lock:freed", is(b + " " + secondHold + "," + a + " " + holdId), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void aReentryAddsAHoldAndTheNextWatchedGrantReusesTheFreeHash() {
        RedisLockService locks = service();
        LockHandle outer = locks.acquire("k", owner("a"));
        String a = outer.ownerToken();
        long token = outer.fencingToken();
        String outerHold = holdId(snapshot());

        LockHandle inner = locks.acquire("k", owner("a"));
        assertThat(inner.fencingToken()).isEqualTo(token);
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), is("owner"), is(a), is("holds"), is("2"), is(a), is("2"),
                    is(outerHold), is("w"), matches(HOLD_ID), is("w"), is("fence"), is(Long.toString(token)),
                    is("chain"), is(Long.toString(token)))
            .check(snapshot());

        inner.release(); // ending one of several holds is marked too: its retry's evidence, whatever the lease does
        DataLayoutSnapshot afterInner = snapshot();
        String innerHold = afterInner.groups("dl:{k}:lock:freed", a + " (" + HOLD_ID + ")")[1];
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(a, outerHold, token, token, false))
            .string("dl:{k}:lock:freed", is(a + " " + innerHold), ttl(RETENTION))
            .check(afterInner);

        outer.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(RETENTION), free(token, token))
            .string("dl:{k}:lock:freed", is(a + " " + outerHold + "," + a + " " + innerHold), ttl(RETENTION))
            .check(snapshot());

        // a watched grant of the free hash: the next token of the run, 'chain' kept
        LockHandle next = locks.acquire("k", owner("b"));
        String b = next.ownerToken();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(b, HOLD_ID, token + 1, token, false))
            .string("dl:{k}:lock:freed", is(a + " " + outerHold + "," + a + " " + innerHold), ttl(RETENTION))
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
            .string("dl:{k}:lock:freed", matches(f + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());

        fixed.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(RETENTION), is("fence"), is(token), is("chain"), is(token))
            .string("dl:{k}:lock:freed", matches(f + " " + HOLD_ID + "," + f + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());
    }

    @Test
    void aRefusedWaiterMarksTheHashAndTheReleasePublishesTheClientId() throws Exception {
        BlockingQueue<String> messages = subscribe("dl:{k}:released");
        RedisLockService holderService = service();
        LockHandle holder = holderService.acquire("k", owner("a"));
        String a = holder.ownerToken();
        long token = holder.fencingToken();
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async()
            .acquire("k", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter's refusal marked the lock");
        String holdId = holdId(snapshot());
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(a, holdId, token, token, true))
            .check(snapshot());
        assertThat(messages).as("nothing published before the release").isEmpty();

        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).as("the release message: the releasing client's id")
            .matches("[0-9a-f]{16}");
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE),
                    watchedHold(next.ownerToken(), HOLD_ID, next.fencingToken(), token, false))
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
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(next.ownerToken(), HOLD_ID, next.fencingToken(),
                    Long.parseLong(token), false))
            .string("dl:{k}:lock:freed", matches(a + " " + HOLD_ID), ttl(RETENTION))
            .check(snapshot());
        next.release();
    }

    @Test
    void aReentryKeepsTheWaitingField() throws Exception {
        RedisLockService locks = service();
        LockHandle outer = locks.acquire("k", owner("a"));
        String a = outer.ownerToken();
        String token = Long.toString(outer.fencingToken());
        String outerHold = holdId(snapshot());
        long before = snapshot().size();
        CompletableFuture<LockHandle> waiter = service().async()
            .acquire("k", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        awaitGrowth(before, "the waiter's refusal marked the lock");
        LockHandle inner = locks.acquire("k", owner("a"));
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), is("owner"), is(a), is("holds"), is("2"), is(a), is("2"),
                    is(outerHold), is("w"), matches(HOLD_ID), is("w"), is("fence"), is(token), is("chain"), is(token),
                    is("waiting"), is("1"))
            .check(snapshot());
        inner.release();
        outer.release();
        waiter.get(10, TimeUnit.SECONDS).release();
    }

    @Test
    void aHandOffFromAFixedLeaseWritesTheNewWatchedHoldAndTheFreedMark() throws Exception {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(builder -> settings().apply(builder).listener(events::add));
        LockHandle holder = locks.acquire("k", owner("a").withLeaseTime(Duration.ofMillis(FIXED_LEASE)));
        String a = holder.ownerToken();
        String token = Long.toString(holder.fencingToken());
        String holdId = holdId(snapshot());
        CompletableFuture<LockHandle> waiter = waitInThread(locks, owner("b"), events);
        holder.release();
        LockHandle next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(events).as("the lock was handed off").anyMatch(LockEvent.HandedOff.class::isInstance);
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(next.ownerToken(), HOLD_ID, next.fencingToken(),
                    Long.parseLong(token), false))
            .string("dl:{k}:lock:freed", is(a + " " + holdId), ttl(RETENTION))
            .check(snapshot());
        assertThat(next.fencingToken()).isEqualTo(holder.fencingToken() + 1);
        next.release();
    }

    @Test
    void aWatchedHandOffKeepsTheRunAndAnotherProcesssWaitingMark() throws Exception {
        List<LockEvent> events = new CopyOnWriteArrayList<>();
        RedisLockService locks = this.clients.service(builder -> settings().apply(builder)
            .handOffLimit(16, Duration.ofSeconds(30)) // no run's bound: hand off though another process waits
            .listener(events::add));
        LockHandle holder = locks.acquire("k", owner("a"));
        String a = holder.ownerToken();
        long token = holder.fencingToken();
        String holdId = holdId(snapshot());
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
        String nextHold = holdId(handedOff);
        DataLayoutSnapshot.expect()
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE), watchedHold(next.ownerToken(), nextHold, token + 1, token, true))
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
    void aDelayedReleaseLeavesTheHashReleasedUntilTheDelayEnds() {
        RedisLockService locks = service();
        LockHandle holder = locks.acquire("k", owner("a"));
        String a = holder.ownerToken();
        String token = Long.toString(holder.fencingToken());
        String holdId = holdId(snapshot());
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
    void aMultiKeyLockIsOneExclusiveLockPerKey() {
        MultiLockHandle both = service().acquireAll(List.of("m2", "m1"), LockOptions.defaults());
        LockHandle m1 = both.members().get(0);
        LockHandle m2 = both.members().get(1);
        assertThat(m1.key()).isEqualTo("m1");
        DataLayoutSnapshot.expect()
            .hash("dl:{m1}:lock", ttl(WATCHDOG_LEASE),
                    watchedHold(m1.ownerToken(), HOLD_ID, m1.fencingToken(), m1.fencingToken(), false))
            .hash("dl:{m2}:lock", ttl(WATCHDOG_LEASE),
                    watchedHold(m2.ownerToken(), HOLD_ID, m2.fencingToken(), m2.fencingToken(), false))
            .check(snapshot());
        both.release();
        DataLayoutSnapshot.expect()
            .hash("dl:{m1}:lock", ttl(RETENTION), free(m1.fencingToken(), m1.fencingToken()))
            .string("dl:{m1}:lock:freed", matches(m1.ownerToken() + " " + HOLD_ID), ttl(RETENTION))
            .hash("dl:{m2}:lock", ttl(RETENTION), free(m2.fencingToken(), m2.fencingToken()))
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
            .hash("dl:{k}:lock", ttl(WATCHDOG_LEASE),
                    watchedHold(lock.ownerToken(), HOLD_ID, lock.fencingToken(), lock.fencingToken(), false))
            .string("dl:restart-grace", is("1"), PERSISTENT)
            .check(snapshot());
        lock.release();
    }

    /**
     * The fields of a lock hash held by {@code owner} with one hold the watchdog renews ({@code holdId}: the hold id or
     * a pattern of it), and 'waiting' when a waiting caller was refused.
     */
    private static DataLayoutSnapshot.Value[] watchedHold(String owner, String holdId, long fence, long chain,
            boolean waiting) {
        List<DataLayoutSnapshot.Value> fields = new java.util.ArrayList<>(List.of(is("owner"), is(owner), is("holds"),
                is("1"), is(owner), is("1"), matches(holdId), is("w"), is("fence"), is(Long.toString(fence)),
                is("chain"), is(Long.toString(chain))));
        if (waiting) {
            fields.addAll(List.of(is("waiting"), is("1")));
        }
        return fields.toArray(DataLayoutSnapshot.Value[]::new);
    }

    /** The fields a free lock hash keeps: its last token and its run's first. */
    private static DataLayoutSnapshot.Value[] free(long fence, long chain) {
        return new DataLayoutSnapshot.Value[] { is("fence"), is(Long.toString(fence)), is("chain"),
            is(Long.toString(chain)) };
    }

    /** The hold id of the one hold in the snapshot's lock hash {@code dl:{k}:lock}. */
    private static String holdId(DataLayoutSnapshot snapshot) {
        return snapshot.entry("dl:{k}:lock").fields().keySet().stream().filter(field -> field.matches(HOLD_ID))
            .findFirst().orElseThrow();
    }
}
