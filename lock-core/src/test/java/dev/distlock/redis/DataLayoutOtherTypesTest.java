package dev.distlock.redis;

import static dev.distlock.redis.DataLayoutSnapshot.HOLD_ID;
import static dev.distlock.redis.DataLayoutSnapshot.TOKEN;
import static dev.distlock.redis.DataLayoutSnapshot.is;
import static dev.distlock.redis.DataLayoutSnapshot.matches;
import static dev.distlock.redis.DataLayoutSnapshot.msFromNow;
import static dev.distlock.redis.DataLayoutSnapshot.ttl;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;

/**
 * {@link DataLayoutTest} for the fair lock, the read/write lock and the semaphores (plain and fair).
 */
class DataLayoutOtherTypesTest extends DataLayoutSupport {

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
            .string("dl:{k}:fair:lock:freed", matches(b + " " + HOLD_ID + "," + a + " " + holdId), ttl(RETENTION))
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
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16} 1"); // client id, permits freed
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
        assertThat(messages.poll(5, TimeUnit.SECONDS)).matches("[0-9a-f]{16} 1"); // client id, permits freed
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
}
