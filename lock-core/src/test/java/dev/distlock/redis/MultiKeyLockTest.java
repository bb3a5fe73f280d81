package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Multi-key locks: all or nothing, in a canonical order, one wait limit, and released as one. */
@RedisTest
class MultiKeyLockTest {

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
    void theSetIsHeldAsOneAndReleasedAsOne() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        MultiLockHandle set = locks.acquireAll(List.of("c", "a", "b", "a"), LockOptions.defaults());

        assertThat(set.members()).extracting(LockHandle::key).containsExactly("a", "b", "c");
        assertThat(set.key()).isEqualTo("[a, b, c]");
        assertThat(set.isHeld()).isTrue();
        assertThat(set.fencingToken()).isEqualTo(
                set.members().stream().mapToLong(LockHandle::fencingToken).max().orElseThrow());
        assertThat(set.member("b").fencingToken()).isPositive();
        for (String key : List.of("a", "b", "c")) {
            assertThat(this.redis.lockField(hash(key), "owner")).isEqualTo(set.member(key).ownerToken());
            assertThat(other.tryAcquire(key)).isEmpty();
        }
        assertThat(other.tryAcquireAll(List.of("x", "c"), LockOptions.defaults())).isEmpty();
        assertThat(this.redis.lockField(hash("x"), "owner")).as("x was rolled back").isNull();

        set.release();
        assertThat(set.isHeld()).isFalse();
        assertThat(locks.renewingCount()).isZero();
        for (String key : List.of("a", "b", "c")) {
            assertThat(this.redis.lockField(hash(key), "owner")).isNull();
        }
        set.release(); // a second release does nothing
        other.executeLockedAll(List.of("a", "b", "c"), LockOptions.defaults(), lock -> {
            assertThat(lock.isHeld()).isTrue();
            return null;
        });
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void callersNamingTheSameKeysInOppositeOrderNeverDeadlock() throws Exception {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(20));
        int iterations = 200;
        CompletableFuture<Integer> forward = CompletableFuture.supplyAsync(
                () -> cycles(first, List.of("left", "right"), options, iterations));
        CompletableFuture<Integer> backward = CompletableFuture.supplyAsync(
                () -> cycles(second, List.of("right", "left"), options, iterations));
        assertThat(forward.get(50, TimeUnit.SECONDS)).isEqualTo(iterations);
        assertThat(backward.get(50, TimeUnit.SECONDS)).isEqualTo(iterations);
    }

    private static int cycles(LockService locks, List<String> keys, LockOptions options, int iterations) {
        int done = 0;
        for (int i = 0; i < iterations; i++) {
            try (MultiLockHandle set = locks.acquireAll(keys, options)) {
                assertThat(set.isHeld()).isTrue();
                done++;
            }
        }
        return done;
    }

    @Test
    void aKeyHeldElsewhereTimesOutTheWholeSetAndLeavesNoKeyBehind() {
        RedisLockService locks = this.clients.service();
        RedisLockService holder = this.clients.service();
        LockHandle busy = holder.acquire("m");
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.acquireAll(List.of("z", "m", "a"),
                LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
            .isInstanceOf(LockTimeoutException.class)
            .hasMessageContaining("'m'")
            .satisfies(ex -> assertThat(((LockTimeoutException) ex).waited())
                .isGreaterThanOrEqualTo(Duration.ofMillis(300)));
        // one wait limit for the set, not one per key
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(this.redis.lockField(hash("a"), "owner")).as("a was released").isNull();
        assertThat(this.redis.call("EXISTS", hash("z"))).as("z was never taken").isEqualTo("0");
        assertThat(locks.renewingCount()).isZero();
        assertThat(busy.isHeld()).isTrue();
    }

    @Test
    void anInterruptedSetAcquisitionReleasesWhatItTookAndKeepsTheFlag() throws Exception {
        RedisLockService locks = this.clients.service();
        RedisLockService holder = this.clients.service();
        holder.acquire("q2");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean flagAfter = new AtomicBoolean();
        Thread thread = new Thread(() -> {
            try {
                locks.acquireAll(List.of("q1", "q2"), LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
            }
            catch (Throwable ex) {
                thrown.set(ex);
                flagAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        thread.start();
        Await.until(Duration.ofSeconds(10),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{q2}:released").endsWith("\n1"),
                "the set waits for q2 while holding q1");
        assertThat(this.redis.lockField(hash("q1"), "owner")).isNotNull();
        thread.interrupt();
        thread.join(10_000);
        assertThat(thrown.get()).isInstanceOf(LockInterruptedException.class);
        assertThat(flagAfter).isTrue();
        assertThat(this.redis.lockField(hash("q1"), "owner")).as("q1 was rolled back").isNull();
    }

    @Test
    void losingOneMemberReportsTheSetLost() throws Exception {
        // long enough that a loaded 2-core CI machine renews the member that is not deleted in time
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(1500)));
        MultiLockHandle set = locks.acquireAll(List.of("p", "r"), LockOptions.defaults());
        CountDownLatch lost = new CountDownLatch(1);
        List<LeaseLostException> reasons = Collections.synchronizedList(new ArrayList<>());
        set.onLeaseLost(reason -> {
            reasons.add(reason);
            lost.countDown();
        });

        this.redis.call("DEL", hash("r"));

        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(set.isHeld()).isFalse();
        assertThat(set.member("p").isHeld()).isTrue();
        assertThat(reasons).singleElement().satisfies(reason -> {
            assertThat(reason.key()).isEqualTo("[p, r]");
            assertThat(reason).hasMessageContaining("'r'");
        });
        // release frees the rest and reports the lost member
        assertThatThrownBy(set::release).isInstanceOf(LeaseLostException.class).hasMessageContaining("'r'");
        assertThat(this.redis.lockField(hash("p"), "owner")).isNull();
        assertThat(reasons).hasSize(1);
    }

    @Test
    void fencingTokensOfASetIncrease() {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            try (MultiLockHandle set = ((i % 2 == 0) ? first : second).acquireAll(List.of("f1", "f2"),
                    LockOptions.defaults())) {
                tokens.add(set.fencingToken());
            }
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void badKeySetsAreRejectedBeforeAnythingReachesRedis() {
        RedisLockService locks = this.clients.service();
        LockOptions options = LockOptions.defaults();
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= LockService.MAX_KEYS; i++) {
            tooMany.add("k" + i);
        }
        assertBad(locks, null, options, "keys must not be null");
        assertBad(locks, List.of(), options, "keys must not be empty");
        assertBad(locks, Arrays.asList("a", null), options, "keys[1] is bad: key must not be null");
        assertBad(locks, List.of("a", " "), options, "keys[1] is bad: key must not be blank");
        assertBad(locks, List.of("a{b}", "c"), options, "keys[0] is bad: key must not contain braces");
        assertBad(locks, tooMany, options, "keys must hold at most 100 distinct keys, but held 101");
        assertBad(locks, List.of("a"), null, "options must not be null");
        assertThatThrownBy(() -> locks.executeLockedAll(List.of("a"), options, null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("work must not be null");
        assertThat(this.redis.call("DBSIZE")).as("nothing written to Redis").isEqualTo("0");
        // 101 names of which 100 are distinct are fine
        List<String> duplicated = new ArrayList<>(tooMany.subList(0, LockService.MAX_KEYS));
        duplicated.add("k0");
        try (MultiLockHandle all = locks.acquireAll(duplicated, LockOptions.defaults())) {
            assertThat(all.members()).hasSize(LockService.MAX_KEYS);
        }
    }

    private static void assertBad(LockService locks, Collection<String> keys, LockOptions options, String message) {
        assertThatThrownBy(() -> locks.acquireAll(keys, options)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
        assertThatThrownBy(() -> locks.tryAcquireAll(keys, options)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
        assertThatThrownBy(() -> locks.executeLockedAll(keys, options, lock -> "never"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
    }

    private static String hash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
