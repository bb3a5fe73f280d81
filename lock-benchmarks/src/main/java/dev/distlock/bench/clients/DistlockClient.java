package dev.distlock.bench.clients;

import java.time.Duration;

import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;


/** distlock's {@link RedisLockService} with default options: watchdog lease, calling thread as owner. */
final class DistlockClient implements LockClient {

    private final LettuceConnection connection;

    private final RedisLockService locks;

    DistlockClient(ClientSettings settings) {
        this.connection = new LettuceConnection(settings.port());
        this.locks = service(this.connection, settings);
    }

    /** The service every distlock client of the benchmark uses, blocking or not. */
    static RedisLockService service(LettuceConnection connection, ClientSettings settings) {
        RedisLockService service = RedisLockService.builder(connection.template)
            .keyPrefix("bench-distlock")
            .watchdogLease(settings.watchdogLease())
            .defaultWaitTime(settings.maxWait())
            // on, so that its check is measured; short, since the benchmark's Redis has just started
            .restartGrace(Duration.ofSeconds(1))
            .build();
        // as the starter does at start-up (distlock.verify-access-on-startup, on by default): it also reads the user's
        // ACL, and the benchmark's user (Redis's default, granted everything) runs the scripts without the ACL guard
        service.verifyAccess();
        return service;
    }

    @Override
    public Held acquire(String key) {
        // Default options: no fixed lease (the watchdog keeps it), the service's wait time (set to maxWait above).
        return this.locks.acquire(key, LockOptions.defaults())::release;
    }

    @Override
    public void close() {
        this.locks.close();
        this.connection.close();
    }
}
