package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.internal.LockBackend;
import dev.distlock.redis.script.LockKeys;

/**
 * The quorum service's backend below the shared skeleton: checks a call's key, that it asks for an exclusive lock and
 * that the service is open, and runs the call's {@link QuorumAttempt} across the masters, on the calling thread or,
 * without blocking, on the service's pool.
 */
final class QuorumLockBackend implements LockBackend {

    private final QuorumParts parts;

    private final Duration watchdogLease;

    private final int maxKeyLength;

    QuorumLockBackend(QuorumParts parts, Duration watchdogLease, int maxKeyLength) {
        this.parts = parts;
        this.watchdogLease = watchdogLease;
        this.maxKeyLength = maxKeyLength;
    }

    @Override
    public String checkKey(@Nullable String key) {
        return LockKeys.checkKey(key, this.maxKeyLength);
    }

    @Override
    public void checkOptions(@Nullable LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (options.mode().isSemaphore()) {
            throw new UnsupportedOperationException("A QuorumLockService offers no semaphores: a permit count kept "
                    + "on a majority of independent masters could exceed its limit when a master restarts without "
                    + "its data; use a RedisLockService for semaphores");
        }
        if (options.mode() != LockMode.EXCLUSIVE) {
            throw new IllegalArgumentException("A QuorumLockService takes only EXCLUSIVE locks, but the mode was "
                    + options.mode());
        }
        if (this.parts.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
    }

    @Override
    public @Nullable LockHandle acquireWithin(String key, LockOptions options, String name, long startNanos,
            long waitNanos) {
        return new QuorumAttempt(this.parts, key, options, name, this.watchdogLease, Thread.currentThread())
            .run(startNanos, waitNanos);
    }

    /**
     * Each attempt runs on one of a few pool threads for at most the node timeout; between attempts nothing waits on
     * a thread. Without an explicit owner, every acquisition is its own owner.
     */
    @Override
    public CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options, String name,
            long startNanos, long waitNanos) {
        return this.parts.async.acquire(new QuorumAttempt(this.parts, key, options, name, this.watchdogLease,
                new Object()), key, startNanos, waitNanos);
    }
}
