package dev.distlock.bench.clients;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fenced floor: the cheapest lock that hands out a fencing token, as a reference for what the token itself costs
 * Redis. One {@code EVALSHA} acquires ({@code SET key token NX PX lease}, then {@code INCR} of the lock's counter key,
 * whose value is the token) and the raw floor's compare-and-delete releases, through the same Spring Data Redis +
 * Lettuce stack as distlock. A refused acquire is sent again at once, as the raw floor's. It flatters itself: the
 * counter keys never expire (one key per lock name, kept forever), and there is no watchdog, reentrancy, hold id,
 * retried-call evidence, waiting mark, restart grace or wake-up.
 */
final class FencedFloorClient implements LockClient {

    /** KEYS[1] the lock, KEYS[2] its counter (same hash tag); ARGV[1] the token, ARGV[2] the lease in ms. */
    static final String ACQUIRE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
            + "return redis.call('INCR', KEYS[2]) end return 0";

    private static final RedisScript<Long> FENCED_ACQUIRE = new DefaultRedisScript<>(ACQUIRE, Long.class);

    private static final RedisScript<Long> COMPARE_AND_DELETE = new DefaultRedisScript<>(
            RawAsyncClient.COMPARE_AND_DELETE, Long.class);

    private final LettuceConnection connection;

    private final String lease;

    private final long maxWaitNanos;

    private final String tokenPrefix = Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";

    private final AtomicLong tokens = new AtomicLong();

    FencedFloorClient(ClientSettings settings) {
        this.connection = new LettuceConnection(settings.port());
        this.lease = Long.toString(settings.watchdogLease().toMillis());
        this.maxWaitNanos = settings.maxWait().toNanos();
    }

    @Override
    public Held acquire(String key) throws AcquireTimeoutException {
        String lockKey = "bench-fenced:{" + key + "}";
        List<String> keys = List.of(lockKey, lockKey + ":fence");
        String token = this.tokenPrefix + this.tokens.incrementAndGet();
        long start = System.nanoTime();
        while (granted(keys, token) == 0) {
            if (System.nanoTime() - start > this.maxWaitNanos) {
                throw new AcquireTimeoutException(key);
            }
        }
        List<String> lock = List.of(lockKey);
        return () -> this.connection.template.execute(COMPARE_AND_DELETE, lock, token);
    }

    /** The fencing token, or 0 when the lock is held. */
    private long granted(List<String> keys, String token) {
        Long fence = this.connection.template.execute(FENCED_ACQUIRE, keys, token, this.lease);
        return (fence == null) ? 0 : fence;
    }

    @Override
    public void close() {
        this.connection.close();
    }
}
