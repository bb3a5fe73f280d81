package dev.distlock.bench.clients;

import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLockService;

/**
 * distlock's leased semaphore: {@code LockOptions.defaults().withPermits(5)}, no fixed lease (the watchdog renews each
 * permit), the service's wait time (the run's maximum wait), on the same service settings as {@link DistlockClient}.
 */
final class DistlockSemaphoreClient implements SemaphoreClient {

    private static final LockOptions ONE_OF_FIVE = LockOptions.defaults().withPermits(LIMIT);

    private final LettuceConnection connection;

    private final RedisLockService locks;

    DistlockSemaphoreClient(ClientSettings settings) {
        this.connection = new LettuceConnection(settings.port());
        this.locks = DistlockClient.service(this.connection, settings);
    }

    @Override
    public void prepare(String key) {
        // the limit is part of every acquisition: nothing to set up
    }

    @Override
    public Permit acquire(String key) throws LockClient.AcquireTimeoutException {
        try {
            return this.locks.acquire(key, ONE_OF_FIVE)::release;
        }
        catch (LockTimeoutException ex) {
            throw new LockClient.AcquireTimeoutException(key);
        }
    }

    @Override
    public void close() {
        this.locks.close();
        this.connection.close();
    }
}
