package dev.distlock.bench.clients;

import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link RLock} in its default watchdog mode: {@code tryLock(wait, unit)} with no lease time. Everything
 * else is Redisson's default configuration (its own connection pool and Netty threads).
 */
final class RedissonLockClient implements LockClient {

    private final RedissonClient redisson;

    private final long maxWaitMillis;

    RedissonLockClient(ClientSettings settings) {
        this.redisson = create(settings);
        this.maxWaitMillis = settings.maxWait().toMillis();
    }

    /** A Redisson client with its defaults but for the address and the watchdog lease, blocking or not. */
    static RedissonClient create(ClientSettings settings) {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://127.0.0.1:" + settings.port());
        config.setLockWatchdogTimeout(settings.watchdogLease().toMillis());
        return Redisson.create(config);
    }

    @Override
    public Held acquire(String key) throws InterruptedException, AcquireTimeoutException {
        RLock lock = this.redisson.getLock("bench-redisson:" + key);
        if (!lock.tryLock(this.maxWaitMillis, TimeUnit.MILLISECONDS)) {
            throw new AcquireTimeoutException(key);
        }
        return lock::unlock;
    }

    @Override
    public void close() {
        this.redisson.shutdown();
    }
}
