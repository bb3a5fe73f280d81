package dev.distlock.spring.micrometer;

import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.MultiLockHandle;
import dev.distlock.spring.ScopedLockHandle;

/**
 * A {@link LockService} whose handles are {@link ScopedLockHandle}s: opening a handle's scope makes its
 * {@value LockObservations#LOCKED} observation current, so that the spans the work starts are the lock's children.
 * It observes nothing itself: the observations come from the lock service's events through {@link LockObservations},
 * which must be a listener of {@code lockService}; this only opens their scopes.
 *
 * <p>The work of {@link #executeLocked} and of a {@link dev.distlock.spring.DistributedLock} method runs inside the
 * scope, blocking or not. A key set's scope is that of its last key's lock.
 */
public final class ObservedLockService implements LockService {

    private final LockService lockService;

    private final LockObservations observations;

    private final AsyncLockService async;

    /** Scopes the handles of {@code lockService}, which reports to {@code observations}. */
    public ObservedLockService(LockService lockService, LockObservations observations) {
        this.lockService = lockService;
        this.observations = observations;
        this.async = new ObservedAsync();
    }

    @Override
    public AsyncLockService async() {
        return this.async;
    }

    @Override
    public LockHandle acquire(String key, LockOptions options) {
        return scoped(this.lockService.acquire(key, options));
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        return this.lockService.tryAcquire(key, options).map(this::scoped);
    }

    @Override
    public <T, E extends Exception> T executeLocked(String key, LockOptions options, LockedWork<T, E> work) throws E {
        requireWork(work);
        return runLocked(scoped(this.lockService.acquire(key, options)), work);
    }

    @Override
    public MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        return scoped(this.lockService.acquireAll(keys, options));
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        return this.lockService.tryAcquireAll(keys, options).map(this::scoped);
    }

    @Override
    public <T, E extends Exception> T executeLockedAll(Collection<String> keys, LockOptions options,
            LockedWork<T, E> work) throws E {
        requireWork(work);
        return runLocked(scoped(this.lockService.acquireAll(keys, options)), work);
    }

    private ObservedLockHandle scoped(LockHandle lock) {
        return new ObservedLockHandle(lock, this.observations);
    }

    private ObservedMultiLockHandle scoped(MultiLockHandle locks) {
        return new ObservedMultiLockHandle(locks, this.observations);
    }

    /** Runs the work in the lock's scope and releases it, with the failure rules of {@link #executeLocked}. */
    private static <T, E extends Exception> T runLocked(ObservedLockHandle lock, LockedWork<T, E> work) throws E {
        T result;
        try (ScopedLockHandle.Scope scope = lock.openScope()) {
            result = work.run(lock);
        }
        catch (Throwable ex) {
            try {
                lock.release();
            }
            catch (RuntimeException releaseFailure) {
                ex.addSuppressed(releaseFailure);
            }
            throw ex;
        }
        lock.release();
        return result;
    }

    private static void requireWork(@Nullable LockedWork<?, ?> work) {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
    }

    /**
     * The future of a scoped handle: completing or cancelling it withdraws the service's attempt, and a handle that
     * arrives after it completed otherwise is released, as the service's own futures do.
     */
    private static <H, R> CompletableFuture<R> mapped(CompletableFuture<H> attempt, Function<H, R> scoping,
            Function<H, CompletableFuture<Void>> release) {
        CompletableFuture<R> result = new CompletableFuture<>();
        attempt.whenComplete((handle, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
            }
            else if (!result.complete(scoping.apply(handle))) {
                release.apply(handle); // completed by its caller meanwhile
            }
        });
        result.whenComplete((value, failure) -> attempt.cancel(false));
        return result;
    }

    /** The non-blocking side, with scoped handles. */
    private final class ObservedAsync implements AsyncLockService {

        private AsyncLockService delegate() {
            return ObservedLockService.this.lockService.async();
        }

        @Override
        public CompletableFuture<LockHandle> acquire(String key, LockOptions options) {
            return mapped(delegate().acquire(key, options), ObservedLockService.this::scoped,
                    LockHandle::releaseAsync);
        }

        @Override
        public CompletableFuture<Optional<LockHandle>> tryAcquire(String key, LockOptions options) {
            return mapped(delegate().tryAcquire(key, options),
                    held -> held.map(ObservedLockService.this::scoped),
                    held -> held.map(LockHandle::releaseAsync).orElse(CompletableFuture.completedFuture(null)));
        }

        @Override
        public CompletableFuture<MultiLockHandle> acquireAll(Collection<String> keys, LockOptions options) {
            return mapped(delegate().acquireAll(keys, options), ObservedLockService.this::scoped,
                    LockHandle::releaseAsync);
        }
    }
}
