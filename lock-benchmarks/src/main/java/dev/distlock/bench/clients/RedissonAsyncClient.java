package dev.distlock.bench.clients;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@link org.redisson.api.RLockAsync} in watchdog mode: {@code tryLockAsync(wait, -1, unit, threadId)}
 * (lease -1: the watchdog keeps it) and {@code unlockAsync(threadId)}. Redisson's locks belong to a thread id, so
 * each owner passes one of its own. Configured as {@link RedissonLockClient}.
 */
final class RedissonAsyncClient implements AsyncLockClient {

    /** Far from the ids of real threads, though each client has its own Redisson id anyway. */
    private static final long OWNER_IDS = 1_000_000_000L;

    private final RedissonClient redisson;

    private final long maxWaitMillis;

    RedissonAsyncClient(ClientSettings settings) {
        this.redisson = RedissonLockClient.create(settings);
        this.maxWaitMillis = settings.maxWait().toMillis();
    }

    @Override
    public CompletionStage<Held> acquire(String key, int owner) {
        RLock lock = this.redisson.getLock("bench-redisson:" + key);
        long threadId = OWNER_IDS + owner;
        return lock.tryLockAsync(this.maxWaitMillis, -1, TimeUnit.MILLISECONDS, threadId).thenApply(acquired -> {
            if (!acquired) {
                throw new CompletionException(new LockClient.AcquireTimeoutException(key));
            }
            return () -> lock.unlockAsync(threadId);
        });
    }

    @Override
    public void close() {
        this.redisson.shutdown();
    }
}
