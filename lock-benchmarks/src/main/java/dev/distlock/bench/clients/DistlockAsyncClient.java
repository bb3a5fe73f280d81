package dev.distlock.bench.clients;

import java.util.concurrent.CompletionStage;

import dev.distlock.AsyncLockService;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;

/**
 * distlock's {@link AsyncLockService}, from a {@link RedisLockService} built as {@link DistlockClient} builds it:
 * {@code acquire(key, LockOptions.defaults())} (watchdog lease, the service's wait time, every call its own owner) and
 * {@code LockHandle.releaseAsync()}.
 */
final class DistlockAsyncClient implements AsyncLockClient {

    private final LettuceConnection connection;

    private final RedisLockService locks;

    private final AsyncLockService async;

    DistlockAsyncClient(ClientSettings settings) {
        this.connection = new LettuceConnection(settings.port());
        this.locks = DistlockClient.service(this.connection, settings);
        this.async = this.locks.async();
    }

    @Override
    public CompletionStage<Held> acquire(String key, int owner) {
        return this.async.acquire(key, LockOptions.defaults()).thenApply(handle -> handle::releaseAsync);
    }

    @Override
    public void close() {
        this.locks.close();
        this.connection.close();
    }
}
