package dev.distlock.bench.clients;

import java.util.concurrent.TimeUnit;

import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * Redisson's {@link RPermitExpirableSemaphore}: {@code trySetPermits(5)} once per key, then
 * {@code tryAcquire(wait, lease, unit)} and {@code release(permitId)}. It has no watchdog, so each permit gets a fixed
 * lease as long as distlock's watchdog lease. Otherwise Redisson's default configuration, as in
 * {@link RedissonLockClient}.
 */
final class RedissonSemaphoreClient implements SemaphoreClient {

    private final RedissonClient redisson;

    private final long maxWaitMillis;

    private final long leaseMillis;

    RedissonSemaphoreClient(ClientSettings settings) {
        this.redisson = RedissonLockClient.create(settings);
        this.maxWaitMillis = settings.maxWait().toMillis();
        this.leaseMillis = settings.watchdogLease().toMillis();
    }

    private RPermitExpirableSemaphore semaphore(String key) {
        return this.redisson.getPermitExpirableSemaphore("bench-redisson:" + key);
    }

    @Override
    public void prepare(String key) {
        RPermitExpirableSemaphore semaphore = semaphore(key);
        if (!semaphore.trySetPermits(LIMIT) && semaphore.getPermits() != LIMIT) {
            throw new IllegalStateException("'" + key + "' is already a semaphore of " + semaphore.getPermits()
                    + " permits, not " + LIMIT);
        }
    }

    @Override
    public Permit acquire(String key) throws InterruptedException, LockClient.AcquireTimeoutException {
        RPermitExpirableSemaphore semaphore = semaphore(key);
        String permitId = semaphore.tryAcquire(this.maxWaitMillis, this.leaseMillis, TimeUnit.MILLISECONDS);
        if (permitId == null) {
            throw new LockClient.AcquireTimeoutException(key);
        }
        return () -> semaphore.release(permitId);
    }

    @Override
    public void close() {
        this.redisson.shutdown();
    }
}
