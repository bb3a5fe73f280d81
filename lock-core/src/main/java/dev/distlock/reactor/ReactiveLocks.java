package dev.distlock.reactor;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;

/**
 * Locks as Reactor publishers, on a service's non-blocking calls ({@link LockService#async()}): nothing happens until
 * subscription, and cancelling the subscription withdraws a pending acquisition (a grant that lands afterwards is
 * released). Thread-safe; signals arrive on Redis client threads, so do not block in operators that follow.
 *
 * <pre>{@code
 * ReactiveLocks locks = ReactiveLocks.of(lockService);
 * Mono<Order> saved = locks.executeLocked("order:" + id, LockOptions.defaults(),
 *         lock -> repository.save(order.withFence(lock.fencingToken())));
 * }</pre>
 */
public final class ReactiveLocks {

    /** The key under which {@link #executeLocked} and {@link #executeLockedMany} put the held lock in the context. */
    public static final Class<LockHandle> CONTEXT_KEY = LockHandle.class;

    private final AsyncLockService locks;

    private ReactiveLocks(AsyncLockService locks) {
        this.locks = locks;
    }

    /**
     * The Reactor view of a service.
     *
     * @throws UnsupportedOperationException when the service has no non-blocking calls
     */
    public static ReactiveLocks of(LockService service) {
        if (service == null) {
            throw new IllegalArgumentException("service must not be null");
        }
        return new ReactiveLocks(service.async());
    }

    /**
     * Acquires the lock on subscription, waiting up to the options' wait time; emits the handle, or the error
     * {@link AsyncLockService#acquire} completes with. Release the handle with {@link #release(LockHandle)}.
     */
    public Mono<LockHandle> acquire(String key, LockOptions options) {
        return acquisition(() -> this.locks.acquire(key, options), LockHandle::releaseAsync);
    }

    /** Makes one attempt on subscription: emits the handle, or completes empty when another owner holds the lock. */
    public Mono<LockHandle> tryAcquire(String key, LockOptions options) {
        return acquisition(() -> this.locks.tryAcquire(key, options),
                (Optional<LockHandle> lock) -> lock.ifPresent(LockHandle::releaseAsync)).flatMap(Mono::justOrEmpty);
    }

    /**
     * An acquisition started on subscription. A cancel withdraws it while it is pending; a lock it got that was not
     * yet delivered when the cancel came (the future had completed, the value was on its way) is released, since
     * nobody receives it.
     */
    private static <T> Mono<T> acquisition(Supplier<CompletableFuture<T>> start, Consumer<? super T> release) {
        return Mono.defer(() -> {
            CompletableFuture<T> future = start.get();
            AtomicBoolean delivered = new AtomicBoolean();
            return Mono.fromFuture(future, false)
                .doOnNext(value -> delivered.set(true))
                .doOnCancel(() -> {
                    if (!future.cancel(false) && delivered.compareAndSet(false, true)) {
                        future.thenAccept(release);
                    }
                });
        });
    }

    /** Releases on subscription: completes when Redis answered, or errors as {@link LockHandle#release()} throws. */
    public Mono<Void> release(LockHandle lock) {
        return Mono.fromFuture(lock::releaseAsync, true);
    }

    /**
     * Holds the lock while {@code work}'s publisher runs: acquired on subscription, released when the work completes,
     * fails or is cancelled. The work also finds the handle in its context under {@link #CONTEXT_KEY}. A work that
     * completed after its lease was lost errors with the release's {@link dev.distlock.LeaseLostException}.
     */
    public <T> Mono<T> executeLocked(String key, LockOptions options,
            Function<? super LockHandle, ? extends Mono<T>> work) {
        return Mono.usingWhen(acquire(key, options),
                lock -> work.apply(lock).contextWrite(context -> context.put(CONTEXT_KEY, lock)), this::release,
                this::releaseAfterFailure, this::release);
    }

    /** {@link #executeLocked} for work that emits many values: the lock is held until the last one. */
    public <T> Flux<T> executeLockedMany(String key, LockOptions options,
            Function<? super LockHandle, ? extends Publisher<T>> work) {
        return Flux.usingWhen(acquire(key, options),
                lock -> Flux.from(work.apply(lock)).contextWrite(context -> context.put(CONTEXT_KEY, lock)),
                this::release, this::releaseAfterFailure, this::release);
    }

    /** Releases after the work failed: the work's error stays the one reported, a release failure suppressed in it. */
    private Mono<Void> releaseAfterFailure(LockHandle lock, Throwable failure) {
        return release(lock).onErrorResume(releaseFailure -> {
            failure.addSuppressed(releaseFailure);
            return Mono.empty();
        });
    }

    /** The lock {@link #executeLocked} holds for the work whose context this is, or null outside one. */
    public static @Nullable LockHandle current(ContextView context) {
        return context.getOrDefault(CONTEXT_KEY, null);
    }
}
