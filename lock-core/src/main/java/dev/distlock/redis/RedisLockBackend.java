package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.internal.LockBackend;
import dev.distlock.redis.script.LockKeys;

/**
 * The single-Redis service's backend below the shared skeleton: checks a call's key, options and that the service is
 * open, and starts the call's {@link Acquisition} (blocking) or {@link AsyncAcquisition} (non-blocking) on the
 * engine's parts.
 */
final class RedisLockBackend implements LockBackend {

    private final CallParts calls;

    private final AsyncThreads async;

    private final BooleanSupplier closed;

    private final int maxKeyLength;

    /** @param closed whether the service is closed (its engine's state, read at every call) */
    RedisLockBackend(CallParts calls, AsyncThreads async, BooleanSupplier closed, int maxKeyLength) {
        this.calls = calls;
        this.async = async;
        this.closed = closed;
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
        if (options.mode().isSemaphore() && options.permitLimit() == 0) {
            throw new IllegalArgumentException("A " + options.mode() + " needs its limit: use withPermits(limit)");
        }
        if (this.closed.getAsBoolean()) {
            throw new IllegalStateException("This LockService is closed");
        }
    }

    @Override
    public @Nullable LockHandle acquireWithin(String key, LockOptions options, String name, long startNanos,
            long waitNanos) {
        return new Acquisition(this.calls, key, options, name, waitNanos > 0).run(startNanos, waitNanos);
    }

    /** Waits for replica acknowledgements too, without blocking: see AsyncAcquisition. */
    @Override
    public CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options, String name,
            long startNanos, long waitNanos) {
        return new AsyncAcquisition(this.calls, this.async, key, options, name, waitNanos > 0)
            .start(startNanos, waitNanos);
    }
}
