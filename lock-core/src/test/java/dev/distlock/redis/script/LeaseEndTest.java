package dev.distlock.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisClients;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A reader's and a permit holder's lease end, and a delayed release's end, is a time in Redis ms
 * (docs/data-layout.md), past once Redis's clock, rounded down to the ms, reaches it. So a grant, renewal or delayed
 * release must write it no earlier than the lease or delay after the call began: the client counts from before it
 * sent the call, and an end written from Redis's clock rounded down would come up to 1 ms before the client's, letting
 * a writer or another permit in while the holder still holds, or the next caller in before the delay has run. Each
 * check reads Redis's {@code TIME} in µs before the call; 20 rounds each, so that a rounding down shows (it does
 * whenever that read and the script fall within one millisecond). A lease or delay given with a part of a millisecond
 * goes to Redis as the next whole one, for the same reason.
 */
@RedisTest
class LeaseEndTest {

    private static final Duration LEASE = Duration.ofMinutes(1);

    private static final int ROUNDS = 20;

    private RedisNode redis;

    private RedisClients clients;

    private RedisLockService locks;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.locks = this.clients.service();
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void aGrantWritesAReadersAndAPermitHoldersLeaseEndNoEarlierThanTheLeaseAfterTheCall() {
        LockOptions fixed = LockOptions.defaults().withLeaseTime(LEASE);
        for (int i = 0; i < ROUNDS; i++) {
            String k = "grant:" + i;
            assertLeaseEndsNoEarlierThan(LEASE.toNanos(), () -> readerLeaseEnd(k, fixed));
            assertLeaseEndsNoEarlierThan(LEASE.toNanos(), () -> permitLeaseEnd(k, fixed));
        }
    }

    @Test
    void aRenewalWritesAReadersAndAPermitHoldersLeaseEndNoEarlierThanTheLeaseAfterTheCall() {
        LockScripts scripts = new LockScripts(this.clients.template());
        long leaseNanos = TimeUnit.MINUTES.toNanos(2);
        for (int i = 0; i < ROUNDS; i++) {
            String k = "renewal:" + i;
            LockHandle read = this.locks.acquire(k, LockOptions.defaults().withMode(LockMode.READ));
            LockHandle permit = this.locks.acquire(k, LockOptions.defaults().withPermits(2));
            String readers = "distlock:{" + k + "}:rw:readers";
            String leases = "distlock:{" + k + "}:sem:leases";
            assertLeaseEndsNoEarlierThan(leaseNanos, () -> {
                int[] renewed = scripts.renewals().batch(Scripts.READ_RENEW,
                        List.of(readers, "distlock:{" + k + "}:rw:reader:" + read.ownerToken()),
                        List.of(read.ownerToken()), leaseNanos).run();
                assertThat(renewed).containsExactly(ScriptReplies.RENEWED);
                return score(readers, read.ownerToken());
            });
            assertLeaseEndsNoEarlierThan(leaseNanos, () -> {
                int[] renewed = scripts.renewals().batch(Scripts.SEM_RENEW,
                        List.of(leases, "distlock:{" + k + "}:sem:permits",
                                "distlock:{" + k + "}:sem:holder:" + permit.ownerToken()),
                        List.of(permit.ownerToken()), leaseNanos).run();
                assertThat(renewed).containsExactly(ScriptReplies.RENEWED);
                return score(leases, permit.ownerToken());
            });
        }
    }

    @Test
    void aLeaseOrADelayWithAPartOfAMillisecondCountsItAsAWholeOne() {
        Duration lease = LEASE.plusNanos(999_000);
        LockOptions fixed = LockOptions.defaults().withLeaseTime(lease);
        for (int i = 0; i < ROUNDS; i++) {
            String k = "part:" + i;
            assertLeaseEndsNoEarlierThan(lease.toNanos(), () -> readerLeaseEnd(k, fixed));
            assertLeaseEndsNoEarlierThan(lease.toNanos(), () -> permitLeaseEnd(k, fixed));
            LockHandle plain = this.locks.acquire(k);
            Duration delay = Duration.ofNanos(500_000);
            assertLeaseEndsNoEarlierThan(delay.toNanos(), () -> {
                plain.releaseAfter(delay);
                String until = this.redis.lockField("distlock:{" + k + "}:lock", "until");
                assertThat(until).as("a delayed release of half a millisecond keeps the lock").isNotNull();
                return Long.parseLong(until);
            });
        }
    }

    @Test
    void aDelayedReleaseNeverEndsBeforeItsWholeDelayHasRun() {
        Duration delay = Duration.ofMinutes(1);
        for (int i = 0; i < ROUNDS; i++) {
            String k = "delay:" + i;
            LockHandle plain = this.locks.acquire(k);
            LockHandle fair = this.locks.acquire(k, LockOptions.defaults().withMode(LockMode.FAIR));
            LockHandle reader = this.locks.acquire(k, LockOptions.defaults().withMode(LockMode.READ));
            LockHandle permit = this.locks.acquire(k, LockOptions.defaults().withPermits(2));
            assertLeaseEndsNoEarlierThan(delay.toNanos(), () -> releasedAfter(plain, delay,
                    () -> this.redis.lockField("distlock:{" + k + "}:lock", "until")));
            assertLeaseEndsNoEarlierThan(delay.toNanos(), () -> releasedAfter(fair, delay,
                    () -> this.redis.lockField("distlock:{" + k + "}:fair:lock", "until")));
            assertLeaseEndsNoEarlierThan(delay.toNanos(), () -> releasedAfter(reader, delay,
                    () -> this.redis.call("ZSCORE", "distlock:{" + k + "}:rw:readers", reader.ownerToken())));
            assertLeaseEndsNoEarlierThan(delay.toNanos(), () -> releasedAfter(permit, delay,
                    () -> this.redis.call("ZSCORE", "distlock:{" + k + "}:sem:leases", permit.ownerToken())));
        }
    }

    private void assertLeaseEndsNoEarlierThan(long leaseNanos, Supplier<Long> callReturningLeaseEnd) {
        long beforeMicros = redisMicros();
        long leaseEndMillis = callReturningLeaseEnd.get();
        assertThat(leaseEndMillis * 1000).as("the end written, in µs of Redis's clock")
            .isGreaterThanOrEqualTo(beforeMicros + TimeUnit.NANOSECONDS.toMicros(leaseNanos));
    }

    /** Releases {@code lock} with {@code delay} and answers the end of the delay as written ({@code end}). */
    private static long releasedAfter(LockHandle lock, Duration delay, Supplier<String> end) {
        lock.releaseAfter(delay);
        return (long) Double.parseDouble(end.get());
    }

    /** Takes a read lock of {@code k} and answers its lease end as written. */
    private long readerLeaseEnd(String k, LockOptions options) {
        LockHandle read = this.locks.acquire(k, options.withMode(LockMode.READ));
        return score("distlock:{" + k + "}:rw:readers", read.ownerToken());
    }

    /** Takes a permit of a semaphore {@code k} of 2 and answers its lease end as written. */
    private long permitLeaseEnd(String k, LockOptions options) {
        LockHandle permit = this.locks.acquire(k, options.withPermits(2));
        return score("distlock:{" + k + "}:sem:leases", permit.ownerToken());
    }

    private long score(String zset, String member) {
        return (long) Double.parseDouble(this.redis.call("ZSCORE", zset, member));
    }

    private long redisMicros() {
        String[] time = this.redis.call("TIME").split("\\n");
        return Long.parseLong(time[0]) * 1_000_000 + Long.parseLong(time[1]);
    }
}
