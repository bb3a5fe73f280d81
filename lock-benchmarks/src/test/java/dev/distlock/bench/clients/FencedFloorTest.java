package dev.distlock.bench.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The fenced floor, the benchmark's reference for the cheapest lock with a fencing token, against a real
 * redis-server: a held lock refuses another acquire until it is released, and each grant takes the next token.
 */
@RedisTest
class FencedFloorTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theBlockingClientExcludesWhileHeldAndCountsOneTokenPerGrant(RedisNode redis) throws Exception {
        try (LockClient client = Implementation.FENCED.open(new ClientSettings(redis.port(), LEASE,
                Duration.ofMillis(200)))) {
            LockClient.Held held = client.acquire("k");
            assertThat(redis.call("PTTL", "bench-fenced:{k}")).satisfies(ttl -> assertThat(Long.parseLong(ttl))
                .isBetween(1L, LEASE.toMillis()));

            assertThatExceptionOfType(LockClient.AcquireTimeoutException.class).isThrownBy(() -> client.acquire("k"));

            held.release();
            assertThat(redis.call("EXISTS", "bench-fenced:{k}")).isEqualTo("0");
            client.acquire("k").release();
            assertThat(redis.call("GET", "bench-fenced:{k}:fence")).isEqualTo("2");
        }
    }

    @Test
    void theNonBlockingClientExcludesWhileHeldAndCountsOneTokenPerGrant(RedisNode redis) throws Exception {
        try (AsyncLockClient client = Implementation.FENCED_ASYNC.openAsync(new ClientSettings(redis.port(), LEASE,
                Duration.ofMillis(200)))) {
            AsyncLockClient.Held held = client.acquire("k", 1).toCompletableFuture().get(10, TimeUnit.SECONDS);

            assertThatExceptionOfType(CompletionException.class)
                .isThrownBy(() -> client.acquire("k", 2).toCompletableFuture().join())
                .withCauseInstanceOf(LockClient.AcquireTimeoutException.class);

            held.release().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(redis.call("EXISTS", "bench-fenced-async:{k}")).isEqualTo("0");
            client.acquire("k", 3).toCompletableFuture().get(10, TimeUnit.SECONDS).release().toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
            assertThat(redis.call("GET", "bench-fenced-async:{k}:fence")).isEqualTo("2");
        }
    }
}
