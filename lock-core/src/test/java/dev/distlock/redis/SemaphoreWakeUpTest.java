package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Whom a semaphore's release wakes: as many waiters as it freed permits (and one more per woken waiter that took
 * permits, the guard against a lost wake-up), not every waiter; and no wake-up is lost, so waiters in other processes
 * get permits at once rather than at their next re-check (at least 5 s later, with holders' leases this long).
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SemaphoreWakeUpTest {

    private static final Duration LEASE = Duration.ofSeconds(60); // fixed: no renewal script runs during the test

    /** Well below a waiter's re-check (5 s, holders' leases being longer): a round that takes this lost a wake-up. */
    private static final Duration ROUND = Duration.ofSeconds(3);

    private RedisNode redis;

    private RedisClients clients;

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.threads.shutdownNow();
        this.clients.close();
    }

    @Test
    void aReleaseOfKPermitsWakesKWaitersOfAnotherServiceNotAllAndLosesNoWakeUp() throws Exception {
        int waiters = 16;
        int k = 2;
        RedisLockService holders = this.clients.service();
        RedisLockService waiting = this.clients.service();
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < waiters / k; i++) { // every permit held, k to a hold
            held.add(holders.acquire("exports", LockOptions.defaults().withPermits(waiters, k).withLeaseTime(LEASE)));
        }
        this.redis.call("CONFIG", "RESETSTAT");
        LockOptions one = LockOptions.defaults().withPermits(waiters).withLeaseTime(LEASE)
            .withWaitTime(Duration.ofSeconds(30));
        List<CompletableFuture<LockHandle>> calls = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> waiting.acquire("exports", one), this.threads));
        }
        // each waiter asks twice: once, and once more subscribed and armed for a release (see WaitingCall)
        Await.until(ROUND, () -> scripts() >= 2 * waiters, "every waiter was refused and waits for a release");
        this.redis.call("CONFIG", "RESETSTAT");

        for (int round = 1; round <= waiters / k; round++) {
            held.get(round - 1).release();
            int granted = k * round;
            Await.until(ROUND, () -> calls.stream().filter(CompletableFuture::isDone).count() == granted,
                    "round " + round + ": " + granted + " waiters hold permits (a lost wake-up waits 5 s)");
        }
        for (CompletableFuture<LockHandle> call : calls) {
            call.get().release();
        }
        long releases = waiters / k + waiters;
        long attempts = scripts() - releases;
        System.out.println("acquire attempts of " + waiters + " waiters after they first waited: " + attempts);
        // each release wakes k waiters, and each that takes permits wakes one more (refused, unless permits are left):
        // 2 per waiter, and at most one more per release for a waiter woken while its own attempt was under way.
        // Waking every waiter would take 16 + 14 + ... + 2 = 72 attempts.
        assertThat(attempts).as("acquire attempts of the waiters after they first waited").isBetween((long) waiters,
                2L * waiters + waiters / k);
    }

    @Test
    void manyWaitersOfTwoServicesOnFewPermitsEachGetThemWellBeforeTheirWaitEnds() throws Exception {
        List<RedisLockService> services = List.of(this.clients.service(), this.clients.service());
        LockOptions two = LockOptions.defaults().withPermits(2).withWaitTime(Duration.ofSeconds(30));
        List<CompletableFuture<Long>> workers = new ArrayList<>();
        for (int t = 0; t < 12; t++) {
            RedisLockService service = services.get(t % 2);
            workers.add(CompletableFuture.supplyAsync(() -> {
                long longest = 0;
                for (int cycle = 0; cycle < 8; cycle++) {
                    long start = System.nanoTime();
                    LockHandle permit = service.acquire("reports", two);
                    longest = Math.max(longest, System.nanoTime() - start);
                    permit.release();
                }
                return longest;
            }, this.threads));
        }
        for (CompletableFuture<Long> worker : workers) {
            // a lost wake-up leaves a waiter asleep until its re-check, 5 s at most with these leases (30 s)
            assertThat(Duration.ofNanos(worker.get(30, TimeUnit.SECONDS))).isLessThan(ROUND);
        }
        assertThat(RedisClients.lockKeys(this.redis)).noneMatch(key -> key.endsWith(":sem:leases"));
    }

    /** Script runs: EVAL and EVALSHA calls, less those refused (NOSCRIPT, answered by an EVAL of the script). */
    private long scripts() {
        long runs = 0;
        for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                runs += field(line, "calls=") - field(line, "failed_calls=") - field(line, "rejected_calls=");
            }
        }
        return runs;
    }

    private static long field(String line, String name) {
        int at = line.indexOf(name);
        if (at < 0) {
            return 0;
        }
        at += name.length();
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at, (end < 0) ? line.length() : end).trim());
    }
}
