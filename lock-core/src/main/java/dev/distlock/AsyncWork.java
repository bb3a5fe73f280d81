package dev.distlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** Runs asynchronous work under a held lock and releases the lock when the work completes, on every path. */
final class AsyncWork {

    private AsyncWork() {
    }

    /**
     * Runs the work once the acquisition completes and releases the lock after it. Completing the result in any way
     * (cancel, complete, orTimeout, ...) before the work started withdraws the acquisition, and a lock that arrives
     * anyway is released unused: the work never runs.
     */
    static <T> CompletableFuture<T> executeLocked(CompletableFuture<? extends LockHandle> acquisition,
            Function<? super LockHandle, ? extends CompletionStage<T>> work) {
        CompletableFuture<T> result = new CompletableFuture<>();
        acquisition.whenComplete((lock, failure) -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
            }
            else if (result.isDone()) {
                lock.releaseAsync(); // cancelled while the lock was acquired
            }
            else {
                runHolding(lock, work).whenComplete((value, workFailure) -> {
                    if (workFailure != null) {
                        result.completeExceptionally(unwrap(workFailure));
                    }
                    else {
                        result.complete(value);
                    }
                });
            }
        });
        result.whenComplete((value, failure) -> acquisition.cancel(false)); // a no-op once it is done
        return result;
    }

    private static <T> CompletableFuture<T> runHolding(LockHandle lock,
            Function<? super LockHandle, ? extends CompletionStage<T>> work) {
        CompletionStage<T> started;
        try {
            started = work.apply(lock);
            if (started == null) {
                throw new IllegalStateException("The locked work returned no CompletionStage");
            }
        }
        catch (RuntimeException | Error ex) {
            started = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        started.whenComplete((value, workFailure) -> lock.releaseAsync().whenComplete((ignored, releaseFailure) -> {
            Throwable cause = unwrap(workFailure);
            if (cause != null) {
                if (releaseFailure != null) {
                    cause.addSuppressed(unwrap(releaseFailure));
                }
                result.completeExceptionally(cause);
            }
            else if (releaseFailure != null) {
                result.completeExceptionally(unwrap(releaseFailure));
            }
            else {
                result.complete(value);
            }
        }));
        return result;
    }

    static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }
}
