package dev.distlock.spring;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockTimeoutException;
import dev.distlock.spring.LockKeyExpressions.EvaluatedKeys;

/**
 * A {@link DistributedLock} call of a method that returns a {@code CompletableFuture} or {@code CompletionStage}: the
 * lock is acquired without blocking, the method is invoked once it is held (on the thread that completed the
 * acquisition: a Redis client thread when the call had to wait), and the lock is released when the returned stage
 * completes. Completing the caller's future in any way (cancel, complete, orTimeout) while the lock is acquired
 * withdraws the acquisition: the method never runs.
 */
final class AsyncLockedCall {

    private AsyncLockedCall() {
    }

    /** What a call that did not get the lock returns instead, or throws. */
    @FunctionalInterface
    interface NotAcquired {

        @Nullable Object handle(LockTimeoutException timeout) throws Throwable;
    }

    static CompletableFuture<@Nullable Object> invoke(AsyncLockService locks, EvaluatedKeys keys, LockedMethod locked,
            MethodInvocation invocation, NotAcquired notAcquired) {
        AtomicBoolean invoked = new AtomicBoolean();
        CompletableFuture<@Nullable Object> locking = keys.several()
                ? locks.executeLockedAll(keys.keys(), locked.options(), lock -> proceed(lock, invocation, invoked))
                : locks.executeLocked(keys.keys().get(0), locked.options(), lock -> proceed(lock, invocation, invoked));
        CompletableFuture<@Nullable Object> result = locking.exceptionallyCompose(failure -> {
            Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
                    ? failure.getCause() : failure;
            if (invoked.get() || !(cause instanceof LockTimeoutException timeout)) {
                return CompletableFuture.failedFuture(cause);
            }
            try {
                Object alternative = notAcquired.handle(timeout);
                return (alternative instanceof CompletionStage<?> stage) ? stage.toCompletableFuture()
                        .thenApply(value -> (Object) value) : CompletableFuture.completedFuture(alternative);
            }
            catch (Throwable ex) {
                return CompletableFuture.failedFuture(ex);
            }
        });
        result.whenComplete((value, failure) -> locking.cancel(false)); // a no-op once the locking is done
        return result;
    }

    /** Invokes the method in the lock's scope, with the lock current on this thread while the method body runs. */
    private static CompletionStage<@Nullable Object> proceed(LockHandle lock, MethodInvocation invocation,
            AtomicBoolean invoked) {
        invoked.set(true);
        CurrentLock.push(lock);
        try (ScopedLockHandle.Scope scope = ScopedLockHandle.openScope(lock)) {
            Object returned = invocation.proceed();
            if (returned == null) {
                return CompletableFuture.completedFuture(null);
            }
            @SuppressWarnings("unchecked")
            CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) returned;
            return stage;
        }
        catch (Throwable ex) {
            return CompletableFuture.failedFuture(ex);
        }
        finally {
            CurrentLock.pop(lock);
        }
    }
}
