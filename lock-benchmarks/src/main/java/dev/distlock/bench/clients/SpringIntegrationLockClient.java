package dev.distlock.bench.clients;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration's {@link RedisLockRegistry} in {@link RedisLockType#PUB_SUB_LOCK} mode, with {@code expireAfter}
 * set to the watchdog lease and a renewal task scheduler, which renews every held lock each third of it: its
 * equivalent of a watchdog. Other settings are the registry's defaults.
 *
 * <p>The registry schedules each lock's renewal with no initial delay, so a renewal starts right after every
 * acquisition, and {@code unlock()} cancels it with an interrupt. Renewals that fail that way are counted and reported
 * instead of logged (Spring's scheduler would log each with a stack trace).
 */
final class SpringIntegrationLockClient implements LockClient {

    private final LettuceConnection connection;

    private final ThreadPoolTaskScheduler renewals = new ThreadPoolTaskScheduler();

    private final RedisLockRegistry registry;

    private final long maxWaitMillis;

    private final AtomicLong failedRenewals = new AtomicLong();

    SpringIntegrationLockClient(ClientSettings settings) {
        this.connection = new LettuceConnection(settings.port());
        this.renewals.setThreadNamePrefix("bench-si-renewal-");
        this.renewals.setErrorHandler(error -> this.failedRenewals.incrementAndGet());
        this.renewals.setWaitForTasksToCompleteOnShutdown(true);
        this.renewals.setAwaitTerminationSeconds(10);
        this.renewals.initialize();
        this.registry = new RedisLockRegistry(this.connection.factory, "bench-si", settings.watchdogLease());
        this.registry.setRedisLockType(RedisLockType.PUB_SUB_LOCK);
        this.registry.setRenewalTaskScheduler(this.renewals);
        this.maxWaitMillis = settings.maxWait().toMillis();
    }

    @Override
    public Held acquire(String key) throws InterruptedException, AcquireTimeoutException {
        Lock lock = this.registry.obtain(key);
        if (!lock.tryLock(this.maxWaitMillis, TimeUnit.MILLISECONDS)) {
            throw new AcquireTimeoutException(key);
        }
        return lock::unlock;
    }

    @Override
    public String diagnostics() {
        long failed = this.failedRenewals.get();
        return (failed == 0) ? "" : failed + " renewal tasks failed (mostly renewals still running when unlock() "
                + "cancelled them with an interrupt)";
    }

    @Override
    public void close() {
        this.renewals.shutdown();
        this.registry.destroy();
        this.connection.close();
    }
}
