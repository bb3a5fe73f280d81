package dev.distlock.bench.clients;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.connection.RedisStringCommands.SetOption;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.core.types.Expiration;

/**
 * The floor: {@code SET key token NX PX lease} to acquire and one {@code EVALSHA} compare-and-delete to release,
 * through the same Spring Data Redis + Lettuce stack as distlock. On contention it retries the SET at once, with no
 * sleep, subscription or backoff, until the maximum wait passes. No watchdog, no reentrancy, no fencing, no wake-up.
 */
final class RawSetNxClient implements LockClient {

    private static final RedisScript<Long> COMPARE_AND_DELETE = new DefaultRedisScript<>(
            RawAsyncClient.COMPARE_AND_DELETE, Long.class);

    private final LettuceConnection connection;

    private final Expiration lease;

    private final long maxWaitNanos;

    private final String tokenPrefix = Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";

    private final AtomicLong tokens = new AtomicLong();

    RawSetNxClient(ClientSettings settings) {
        this.connection = new LettuceConnection(settings.port());
        this.lease = Expiration.milliseconds(settings.watchdogLease().toMillis());
        this.maxWaitNanos = settings.maxWait().toNanos();
    }

    @Override
    public Held acquire(String key) throws AcquireTimeoutException {
        String redisKey = "bench-raw:" + key;
        String token = this.tokenPrefix + this.tokens.incrementAndGet();
        byte[] keyBytes = redisKey.getBytes(StandardCharsets.UTF_8);
        byte[] tokenBytes = token.getBytes(StandardCharsets.UTF_8);
        long start = System.nanoTime();
        while (!setIfAbsent(keyBytes, tokenBytes)) {
            if (System.nanoTime() - start > this.maxWaitNanos) {
                throw new AcquireTimeoutException(key);
            }
        }
        return () -> this.connection.template.execute(COMPARE_AND_DELETE, List.of(redisKey), token);
    }

    private boolean setIfAbsent(byte[] key, byte[] token) {
        Boolean set = this.connection.template.execute((RedisCallback<Boolean>) redis -> redis.stringCommands()
            .set(key, token, this.lease, SetOption.ifAbsent()));
        return Boolean.TRUE.equals(set);
    }

    @Override
    public void close() {
        this.connection.close();
    }
}
