package dev.distlock.spring;

import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockTimeoutException;
import dev.distlock.reactor.ReactiveLocks;
import dev.distlock.spring.LockKeyExpressions.EvaluatedKeys;

/**
 * A {@link DistributedLock} call of a method that returns a {@code Mono}, a {@code Flux} or a {@code Publisher}, or of
 * a Kotlin suspend function (which Spring's proxy runs as a {@code Mono}): the
 * lock is acquired on subscription, the method is invoked once it is held, and the lock is released when its
 * publisher completes, fails or is cancelled. The work finds the handle in its Reactor context under
 * {@link ReactiveLocks#CONTEXT_KEY}. Loaded only for such methods, so Reactor is needed only by their applications.
 */
final class ReactiveLockedCall {

    private ReactiveLockedCall() {
    }

    static Object empty(ResultStyle style) {
        return (style == ResultStyle.FLUX) ? Flux.empty() : Mono.empty();
    }

    static Object invoke(AsyncLockService locks, EvaluatedKeys keys, LockedMethod locked, MethodInvocation invocation,
            AsyncLockedCall.NotAcquired notAcquired, Function<IllegalArgumentException, RuntimeException> badKey) {
        Mono<Acquired> acquired = Mono.fromFuture(() -> acquire(locks, keys, locked), false)
            .onErrorMap(IllegalArgumentException.class, badKey)
            .map(lock -> new Acquired(lock, null))
            .onErrorResume(LockTimeoutException.class, timeout -> Mono.just(new Acquired(null, timeout)));
        if (locked.style() != ResultStyle.FLUX) {
            return acquired.flatMap(attempt -> (attempt.lock() == null)
                    ? Mono.from(alternative(notAcquired, attempt.timeout()))
                    : Mono.usingWhen(Mono.just(attempt.lock()), lock -> Mono.from(proceed(lock, invocation, locked)),
                            ReactiveLockedCall::release, ReactiveLockedCall::releaseAfterError,
                            ReactiveLockedCall::release));
        }
        return acquired.flatMapMany(attempt -> (attempt.lock() == null)
                ? Flux.from(alternative(notAcquired, attempt.timeout()))
                : Flux.usingWhen(Mono.just(attempt.lock()), lock -> proceed(lock, invocation, locked),
                        ReactiveLockedCall::release, ReactiveLockedCall::releaseAfterError,
                        ReactiveLockedCall::release));
    }

    @SuppressWarnings("unchecked")
    private static CompletableFuture<LockHandle> acquire(AsyncLockService locks, EvaluatedKeys keys,
            LockedMethod locked) {
        return keys.several() ? (CompletableFuture<LockHandle>) (CompletableFuture<?>) locks
            .acquireAll(keys.keys(), locked.options()) : locks.acquire(keys.keys().get(0), locked.options());
    }

    /**
     * Invokes the method in the lock's scope and gives its publisher the lock in its context (a suspend function in its
     * coroutine context too).
     */
    @SuppressWarnings("unchecked")
    private static Flux<Object> proceed(LockHandle lock, MethodInvocation invocation, LockedMethod locked) {
        Publisher<Object> work;
        CurrentLock.push(lock);
        try (ScopedLockHandle.Scope scope = ScopedLockHandle.openScope(lock)) {
            if (locked.style() == ResultStyle.SUSPEND) {
                SuspendFunctions.putInContext(lock, invocation);
            }
            work = (Publisher<Object>) invocation.proceed();
        }
        catch (Throwable ex) {
            return Flux.error(ex);
        }
        finally {
            CurrentLock.pop(lock);
        }
        return (work == null) ? Flux.empty()
                : Flux.from(work).contextWrite(context -> context.put(ReactiveLocks.CONTEXT_KEY, lock));
    }

    private static Publisher<?> alternative(AsyncLockedCall.NotAcquired notAcquired, LockTimeoutException timeout) {
        try {
            Object alternative = notAcquired.handle(timeout);
            return (alternative instanceof Publisher<?> publisher) ? publisher : Mono.justOrEmpty(alternative);
        }
        catch (Throwable ex) {
            return Mono.error(ex);
        }
    }

    private static Mono<Void> release(LockHandle lock) {
        return Mono.fromFuture(lock::releaseAsync, true);
    }

    /** After a failed work: its error stays the one reported, with a release failure suppressed. */
    private static Mono<Void> releaseAfterError(LockHandle lock, Throwable failure) {
        return release(lock).onErrorResume(releaseFailure -> {
            failure.addSuppressed(releaseFailure);
            return Mono.empty();
        });
    }

    private record Acquired(@Nullable LockHandle lock, @Nullable LockTimeoutException timeout) {
    }
}
