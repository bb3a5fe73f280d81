package dev.distlock;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A {@link LockService} whose every acquisition goes through the non-blocking {@link LockService#async()} of another
 * and waits on the future: runs the {@link LockServiceContract} through the non-blocking API. A non-blocking call
 * without an explicit owner is its own owner, so the calling thread is named as the owner, as a blocking call's is
 * (not for a semaphore, whose permits have no owner). Closing it closes the service it wraps.
 */
public final class AsyncBackedLockService implements LockService, AutoCloseable {

    private final LockService service;

    public AsyncBackedLockService(LockService service) {
        this.service = service;
    }

    /** The wrapped service's inspection (inspect reads Redis the same however the locks were taken). */
    public LockInspection inspection() {
        return (LockInspection) this.service;
    }

    @Override
    public LockHandle acquire(String key, LockOptions options) {
        return await(key, this.service.async().acquire(key, owned(options)));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        return await(key, this.service.async().tryAcquire(key, owned(options)));
    }

    @Override
    public MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        return await(String.valueOf(keys), this.service.async().acquireAll(keys, owned(options)));
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        LockOptions once = (options != null) ? owned(options).withWaitTime(Duration.ZERO) : null;
        try {
            return Optional.of(await(String.valueOf(keys), this.service.async().acquireAll(keys, once)));
        }
        catch (LockTimeoutException held) {
            return Optional.empty();
        }
    }

    @Override
    public AsyncLockService async() {
        return this.service.async();
    }

    @Override
    public void close() throws Exception {
        if (this.service instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    /**
     * The options with the calling thread as owner, unless they name one or are a semaphore's (null stays null: a bad
     * argument).
     */
    private static LockOptions owned(LockOptions options) {
        return (options == null || options.owner() != null || options.mode().isSemaphore()) ? options
                : options.withOwner(Thread.currentThread());
    }

    /** Waits for the future; its failure is thrown as the blocking call would throw it. */
    private static <T> T await(String key, CompletableFuture<T> future) {
        try {
            return future.get();
        }
        catch (InterruptedException ex) {
            future.cancel(false);
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, ex);
        }
        catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(ex.getCause());
        }
    }
}
