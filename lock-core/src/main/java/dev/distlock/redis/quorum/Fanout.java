package dev.distlock.redis.quorum;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * One call per master, run in parallel, and the answers that came back in time. A call the executor refuses (it is
 * saturated or shut down) runs on the calling thread instead.
 *
 * @param <T> what a call returns
 */
final class Fanout<T> {

    private final List<CompletableFuture<T>> calls;

    private Fanout(List<CompletableFuture<T>> calls) {
        this.calls = calls;
    }

    static <T> Fanout<T> start(Executor executor, List<? extends Supplier<T>> calls) {
        List<CompletableFuture<T>> futures = new ArrayList<>(calls.size());
        for (Supplier<T> call : calls) {
            CompletableFuture<T> future;
            try {
                future = CompletableFuture.supplyAsync(call, executor);
            }
            catch (RejectedExecutionException ex) {
                future = new CompletableFuture<>();
                try {
                    future.complete(call.get());
                }
                catch (RuntimeException failure) {
                    future.completeExceptionally(failure);
                }
            }
            futures.add(future);
        }
        return new Fanout<>(futures);
    }

    /** Waits until every call has answered or {@code timeoutNanos} passed. */
    Fanout<T> await(long timeoutNanos) throws InterruptedException {
        CompletableFuture<Void> all = CompletableFuture.allOf(this.calls.toArray(CompletableFuture[]::new));
        try {
            all.get(timeoutNanos, TimeUnit.NANOSECONDS);
        }
        catch (ExecutionException | TimeoutException ex) {
            // every call has answered (some with a failure), or the time is up: the answers tell which
        }
        return this;
    }

    /** Waits as {@link #await} does, through interrupts, which are kept for the caller to see. */
    Fanout<T> awaitUninterruptibly(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return await(deadline - System.nanoTime());
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The answers so far, in call order. A call that has not answered is given up: its value, when it comes, goes to
     * {@code lateValue} (to release a lock granted too late, say).
     */
    List<Answer<T>> collect(Consumer<? super T> lateValue) {
        List<Answer<T>> answers = new ArrayList<>(this.calls.size());
        for (CompletableFuture<T> call : this.calls) {
            if (!call.isDone()) {
                call.thenAccept(lateValue); // runs at once if the call answered meanwhile: it is given up either way
                answers.add(new Answer<>(false, null, null));
                continue;
            }
            try {
                answers.add(new Answer<>(true, call.join(), null));
            }
            catch (CompletionException ex) {
                answers.add(new Answer<>(true, null, runtime(ex.getCause())));
            }
        }
        return answers;
    }

    /** Gives up every call, answered or not: each value goes to {@code lateValue}, now or when it comes. */
    void giveUp(Consumer<? super T> lateValue) {
        for (CompletableFuture<T> call : this.calls) {
            call.thenAccept(lateValue);
        }
    }

    private static RuntimeException runtime(@Nullable Throwable failure) {
        if (failure instanceof RuntimeException runtime) {
            return runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new IllegalStateException("A call to a Redis master failed", failure);
    }

    /**
     * One master's answer: whether it came in time, and then its value (null for calls that return nothing) or its
     * failure.
     */
    record Answer<T>(boolean answered, @Nullable T value, @Nullable RuntimeException failure) {

        boolean succeeded() {
            return this.answered && this.failure == null;
        }
    }
}
