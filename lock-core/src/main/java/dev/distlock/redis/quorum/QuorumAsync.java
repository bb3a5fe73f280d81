package dev.distlock.redis.quorum;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockUnavailableException;
import dev.distlock.internal.DaemonThreads;

/**
 * The non-blocking side of a {@link QuorumLockService}: each attempt (every master asked at once, as a blocking
 * attempt does) runs on one of a few daemon threads and occupies it for at most the node timeout; between attempts
 * a call waits on one timer thread, holding none. Both start on first use; {@link #close()} stops them and completes
 * every pending call; releases still run after it.
 */
final class QuorumAsync {

    /** The most attempts and releases that run at once; more wait in line. */
    private static final int THREADS = 4;

    private final ThreadPoolExecutor attempts = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(), DaemonThreads.named("distlock-quorum-async-"));

    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
            DaemonThreads.named("distlock-quorum-timer-"));

    /** The calls not yet completed, with their keys: {@link #close()} completes them. */
    private final Map<CompletableFuture<@Nullable LockHandle>, String> pending = new ConcurrentHashMap<>();

    QuorumAsync() {
        this.attempts.allowCoreThreadTimeOut(true);
        this.timer.setRemoveOnCancelPolicy(true);
    }

    /** Attempts until a quorum grants the lock or the wait ends; cancelling the future stops the attempts. */
    CompletableFuture<@Nullable LockHandle> acquire(QuorumAttempt attempt, String key, long startNanos,
            long waitNanos) {
        CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();
        this.pending.put(result, key);
        result.whenComplete((handle, failure) -> this.pending.remove(result));
        if (this.attempts.isShutdown()) { // closed since the call was checked: close() may have missed it
            result.completeExceptionally(closed(key));
        }
        submit(() -> tryOnce(attempt, key, startNanos, waitNanos, result), result);
        return result;
    }

    /**
     * Releases on an attempt thread, so that the caller's thread (perhaps a Redis client's) never waits; after
     * {@link #close()} on a thread of its own, since a release still goes through then.
     */
    CompletableFuture<Void> release(Runnable release) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                release.run();
                done.complete(null);
            }
            catch (RuntimeException ex) {
                done.completeExceptionally(ex);
            }
        };
        try {
            this.attempts.execute(task);
        }
        catch (RejectedExecutionException closed) {
            DaemonThreads.named("distlock-quorum-release-").newThread(task).start();
        }
        return done;
    }

    private void tryOnce(QuorumAttempt attempt, String key, long startNanos, long waitNanos,
            CompletableFuture<@Nullable LockHandle> result) {
        if (result.isDone()) {
            return; // cancelled
        }
        LockHandle handle = null;
        LockUnavailableException unavailable = null;
        try {
            handle = attempt.once();
        }
        catch (LockUnavailableException ex) {
            unavailable = ex;
        }
        catch (InterruptedException ex) {
            result.completeExceptionally(new LockInterruptedException(key, ex)); // the service is closing
            return;
        }
        catch (RuntimeException ex) {
            result.completeExceptionally(ex);
            return;
        }
        if (handle != null) {
            if (!result.complete(handle)) {
                handle.release(); // cancelled while the attempt ran: nobody receives this handle
            }
            return;
        }
        long remaining = waitNanos - (System.nanoTime() - startNanos);
        if (remaining <= 0) {
            if (unavailable != null) {
                result.completeExceptionally(unavailable);
            }
            else {
                result.complete(null);
            }
            return;
        }
        long pause = Math.min(remaining, ThreadLocalRandom.current().nextLong(QuorumAttempt.RETRY_MIN_NANOS,
                QuorumAttempt.RETRY_MAX_NANOS + 1));
        try {
            this.timer.schedule(() -> submit(() -> tryOnce(attempt, key, startNanos, waitNanos, result), result),
                    pause, TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException ex) {
            result.completeExceptionally(closed(key));
        }
    }

    private void submit(Runnable task, CompletableFuture<?> result) {
        try {
            this.attempts.execute(task);
        }
        catch (RejectedExecutionException ex) {
            result.completeExceptionally(new IllegalStateException("This LockService is closed"));
        }
    }

    private static IllegalStateException closed(String key) {
        return new IllegalStateException("This LockService was closed while waiting for lock " + KeyText.quote(key));
    }

    void close() {
        this.attempts.shutdown(); // attempts and releases under way finish
        this.timer.shutdownNow(); // the next attempts it would start are dropped: their calls complete here
        this.pending.forEach((result, key) -> result.completeExceptionally(closed(key)));
    }
}
