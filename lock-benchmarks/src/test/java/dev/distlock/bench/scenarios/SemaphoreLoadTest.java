package dev.distlock.bench.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.clients.SemaphoreClient;
import dev.distlock.bench.harness.LoadResult;
import dev.distlock.bench.harness.ThreadResult;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Scenario 11's semaphore clients against a real redis-server: 16 threads never hold more than 5 permits of one
 * semaphore at once, and exactly 5 are granted (a sixth waits until one is released). No timing is asserted.
 */
@RedisTest
class SemaphoreLoadTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @ParameterizedTest
    @EnumSource(names = { "DISTLOCK", "REDISSON" })
    void sixteenThreadsNeverHoldMoreThanFivePermitsOfOneSemaphore(Implementation implementation, RedisNode redis)
            throws Exception {
        ClientSettings settings = new ClientSettings(redis.port(), LEASE, Duration.ofSeconds(10));
        try (SemaphoreClient client = SemaphoreClient.open(implementation, settings);
                WorkerPool pool = new WorkerPool(SemaphoreScenario.THREADS, "test-s11")) {
            SemaphoreLoad load = new SemaphoreLoad("t11:", 1, Duration.ofMillis(1));
            load.keys().forEach(client::prepare);

            LoadResult result = load.run(client, pool, Duration.ofMillis(1500), Duration.ofSeconds(30));

            assertThat(result.errors()).as("errors, first: %s", result.firstError()).isZero();
            assertThat(result.violations()).as("times more than 5 held at once").isZero();
            assertThat(result.cycles()).isGreaterThanOrEqualTo(SemaphoreScenario.THREADS);
            assertThat(load.mostHolders()).isBetween(1, SemaphoreClient.LIMIT);
        }
    }

    @ParameterizedTest
    @EnumSource(names = { "DISTLOCK", "REDISSON" })
    void fivePermitsAreGrantedAndASixthOnlyOnceOneIsReleased(Implementation implementation, RedisNode redis)
            throws Exception {
        ClientSettings settings = new ClientSettings(redis.port(), LEASE, Duration.ofMillis(300));
        // distlock's benchmark client keeps a 1 s restart grace, which refuses at once a wait shorter than what is left
        // of it on a server just started (when this test runs first)
        Await.until(Duration.ofSeconds(10), () -> new RedisProbe(redis).uptimeSeconds() >= 2, "the server is older than the grace");
        try (SemaphoreClient client = SemaphoreClient.open(implementation, settings)) {
            client.prepare("t11:five");
            List<SemaphoreClient.Permit> held = new ArrayList<>();
            for (int i = 0; i < SemaphoreClient.LIMIT; i++) {
                held.add(client.acquire("t11:five"));
            }
            assertThatExceptionOfType(LockClient.AcquireTimeoutException.class)
                .isThrownBy(() -> client.acquire("t11:five"));

            held.remove(0).release();
            held.add(client.acquire("t11:five"));
            for (SemaphoreClient.Permit permit : held) {
                permit.release();
            }
        }
    }

    @Test
    void theHolderCountMarksEveryHolderPastTheFifthAsAViolation() {
        AtomicInteger most = new AtomicInteger();
        SemaphoreLoad.Holders holders = new SemaphoreLoad.Holders(most);
        ThreadResult result = new ThreadResult();
        for (int i = 0; i < SemaphoreClient.LIMIT; i++) {
            holders.acquired(result);
        }
        assertThat(violations(result)).isZero();
        holders.acquired(result);
        assertThat(violations(result)).isOne();
        holders.releasing();
        holders.releasing();
        holders.acquired(result);
        assertThat(violations(result)).isOne();
        assertThat(most).hasValue(SemaphoreClient.LIMIT + 1);
    }

    private static long violations(ThreadResult result) {
        return LoadResult.merge(List.of(result), 0).violations();
    }
}
