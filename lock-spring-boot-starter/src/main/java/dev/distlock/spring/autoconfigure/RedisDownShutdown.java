package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import dev.distlock.redis.RedisLockService;

/**
 * Shutdown while Redis is down. The scheduler (phase {@link #DEFAULT_PHASE}, first to stop) waits up to
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s) for running jobs, and a job waiting for a lock with Redis
 * down sits in a Redis command until the client's command timeout (60 s by default): the lock service and the
 * connections ({@link LockServiceLifecycle}, phase {@value LockServiceLifecycle#PHASE}, and phase 0) would only close
 * after that. So at the scheduler's phase this asks Redis for a PING; when none comes within {@link #PROBE}, nothing
 * can be locked or released anyway, and it closes the lock service (ending its waiting calls) and stops the Redis
 * connection factory (failing the commands stuck in it) at once. With Redis answering it does nothing, and the
 * normal order stands: web requests drain first, holding their locks.
 */
final class RedisDownShutdown implements SmartLifecycle {

    static final Duration PROBE = Duration.ofSeconds(1);

    private static final Log logger = LogFactory.getLog(RedisDownShutdown.class);

    private final ObjectProvider<RedisLockService> lockServices;

    private final @Nullable RedisConnectionFactory connectionFactory;

    private volatile boolean running;

    RedisDownShutdown(ObjectProvider<RedisLockService> lockServices,
            @Nullable RedisConnectionFactory connectionFactory) {
        this.lockServices = lockServices;
        this.connectionFactory = connectionFactory;
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        this.running = false;
        RedisLockService lockService = this.lockServices.getIfUnique();
        if (lockService == null || answers(lockService)) {
            return;
        }
        logger.info("Redis does not answer at shutdown: closing the distlock lock service and the Redis connections "
                + "now, so that calls waiting for a lock end instead of holding up the shutdown.");
        lockService.close();
        if (this.connectionFactory instanceof Lifecycle lifecycle && lifecycle.isRunning()) {
            lifecycle.stop();
        }
    }

    private static boolean answers(RedisLockService lockService) {
        CompletableFuture<Void> ping = new CompletableFuture<>();
        Thread probe = new Thread(() -> {
            try {
                lockService.ping();
                ping.complete(null);
            }
            catch (RuntimeException ex) {
                ping.completeExceptionally(ex);
            }
        }, "distlock-shutdown-ping");
        probe.setDaemon(true);
        probe.start();
        try {
            ping.get(PROBE.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (TimeoutException | ExecutionException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return DEFAULT_PHASE;
    }
}
