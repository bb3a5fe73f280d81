package dev.distlock.internal;

import static dev.distlock.internal.Futures.unwrap;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;

/**
 * The non-blocking acquisition skeleton every service shares, as {@code AbstractLockService} is the blocking one:
 * checks the request at the call, applies the wait limit, tells the listener, and ties the caller's future to the
 * service's attempt, so that cancelling it withdraws the attempt and a handle nobody can receive any more is released.
 */
final class AsyncLocks implements AsyncLockService {

    private final LockBackend backend;

    private final Function<LockOptions, Duration> waitTime;

    private final AcquisitionReports reports;

    /**
     * @param backend checks a caller's key and options, and starts the service's non-blocking attempts
     * @param waitTime the wait limit of a call with these options
     */
    AsyncLocks(LockBackend backend, Function<LockOptions, Duration> waitTime, AcquisitionReports reports) {
        this.backend = backend;
        this.waitTime = waitTime;
        this.reports = reports;
    }

    @Override
    public CompletableFuture<LockHandle> acquire(String key, LockOptions options) {
        this.backend.checkKey(key);
        this.backend.checkOptions(options);
        long start = System.nanoTime();
        return mapped(attempt(key, options, this.waitTime.apply(options)), handle -> {
            if (handle == null) {
                throw new LockTimeoutException(key, Durations.since(start));
            }
            return handle;
        });
    }

    @Override
    public CompletableFuture<Optional<LockHandle>> tryAcquire(String key, LockOptions options) {
        this.backend.checkKey(key);
        this.backend.checkOptions(options);
        return mapped(attempt(key, options, Duration.ZERO), Optional::ofNullable);
    }

    @Override
    public CompletableFuture<MultiLockHandle> acquireAll(Collection<String> keys, LockOptions options) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys, this.backend);
        this.backend.checkOptions(options);
        long start = System.nanoTime();
        long waitNanos = Durations.saturatedNanos(this.waitTime.apply(options));
        CompletableFuture<MultiLockHandle> result = new CompletableFuture<>();
        next(canonical, options, new ArrayList<>(canonical.size()), start, waitNanos, result);
        return result;
    }

    /** Takes the set's next key, or completes the set; rolls back on a failure or a cancel. */
    private void next(List<String> keys, LockOptions options, List<LockHandle> held, long start, long waitNanos,
            CompletableFuture<MultiLockHandle> result) {
        if (held.size() == keys.size()) {
            LockSet set = new LockSet(held, options.name());
            if (!result.complete(set)) {
                set.releaseAsync(); // cancelled meanwhile
            }
            return;
        }
        String key = keys.get(held.size());
        long remaining = waitNanos - (System.nanoTime() - start);
        CompletableFuture<@Nullable LockHandle> member = attempt(key, options,
                Duration.ofNanos(Math.max(0, remaining)));
        result.whenComplete((set, failure) -> member.cancel(false));
        member.whenComplete((handle, failure) -> {
            if (handle != null) {
                held.add(handle);
            }
            if (failure != null || handle == null || result.isDone()) {
                Throwable cause = (failure != null) ? unwrap(failure)
                        : new LockTimeoutException(key, Durations.since(start));
                LockSet.releaseAllAsync(held).whenComplete((ignored, rollBackFailure) -> {
                    if (rollBackFailure != null) {
                        cause.addSuppressed(unwrap(rollBackFailure));
                    }
                    result.completeExceptionally(cause);
                });
                return;
            }
            next(keys, options, held, start, waitNanos, result);
        });
    }

    /**
     * Asks the service for the lock and reports the outcome to the listener. The returned future completes with the
     * handle, or null when the lock stayed held; cancelling it cancels the service's attempt, and a handle that
     * arrives after it completed otherwise is released.
     */
    private CompletableFuture<@Nullable LockHandle> attempt(String key, LockOptions options, Duration wait) {
        long start = System.nanoTime();
        String name = options.nameFor(key);
        long number = this.reports.started(key, name, options);
        CompletableFuture<@Nullable LockHandle> caller = new CompletableFuture<>();
        CompletableFuture<@Nullable LockHandle> attempt;
        try {
            attempt = this.backend.acquireWithinAsync(key, options, name, start, Durations.saturatedNanos(wait));
        }
        catch (LockException ex) {
            attempt = CompletableFuture.failedFuture(ex);
        }
        CompletableFuture<@Nullable LockHandle> started = attempt;
        caller.whenComplete((handle, failure) -> started.cancel(false));
        started.whenComplete((handle, failure) -> {
            if (failure != null) {
                Throwable cause = unwrap(failure);
                this.reports.failed(number, key, name, start, cause);
                caller.completeExceptionally(cause);
            }
            else {
                // reported before the caller sees the handle, so that its release is reported after this
                this.reports.ended(number, key, name, start, handle);
                if (!caller.complete(handle) && handle != null) {
                    handle.releaseAsync(); // cancelled meanwhile: nobody receives this handle
                }
            }
        });
        return caller;
    }

    /**
     * The caller's future: the attempt's outcome, mapped. Completing it in any other way (cancel, complete,
     * completeExceptionally, orTimeout) withdraws the attempt, and a handle the attempt delivers anyway is released,
     * since nobody receives it.
     */
    private static <R> CompletableFuture<R> mapped(CompletableFuture<@Nullable LockHandle> attempt,
            Function<? super @Nullable LockHandle, ? extends R> mapping) {
        CompletableFuture<R> result = new CompletableFuture<>();
        attempt.whenComplete((handle, failure) -> {
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
                return;
            }
            R value;
            try {
                value = mapping.apply(handle);
            }
            catch (RuntimeException ex) {
                result.completeExceptionally(ex);
                return;
            }
            if (!result.complete(value) && handle != null) {
                handle.releaseAsync(); // completed by its caller meanwhile
            }
        });
        result.whenComplete((value, failure) -> attempt.cancel(false)); // a no-op once the attempt is done
        return result;
    }
}
