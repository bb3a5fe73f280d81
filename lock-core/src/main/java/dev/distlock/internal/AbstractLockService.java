package dev.distlock.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.KeyText;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;

/**
 * The acquisition skeleton every service shares: checks the request, applies the wait limit, names the lock and tells
 * the listener that an acquisition began and what came of it (acquired, not acquired, failed), for single keys and for
 * key sets. A service supplies the key rules, the option rules and {@link #acquireWithin}, which tries until the lock
 * is granted or the wait ends.
 */
public abstract class AbstractLockService implements LockService {

    private final LockEventListener listener;

    private final Duration defaultWaitTime;

    private final AsyncLocks async = new AsyncLocks(this);

    protected AbstractLockService(LockEventListener listener, Duration defaultWaitTime) {
        this.listener = listener;
        this.defaultWaitTime = defaultWaitTime;
    }

    /** The non-blocking side, for a service that implements {@link #acquireWithinAsync}. */
    @Override
    public AsyncLockService async() {
        if (!offersAsync()) {
            return LockService.super.async();
        }
        return this.async;
    }

    @Override
    public final LockHandle acquire(String key, LockOptions options) {
        checkKey(key);
        checkOptions(options);
        long start = System.nanoTime();
        LockHandle handle = attempt(key, options, waitTime(options));
        if (handle == null) {
            throw new LockTimeoutException(key, since(start));
        }
        return handle;
    }

    @Override
    public final Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        checkKey(key);
        checkOptions(options);
        return Optional.ofNullable(attempt(key, options, Duration.ZERO));
    }

    @Override
    public final MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys, this::checkKey);
        checkOptions(options);
        return MultiKeyAcquisition.acquire(this, canonical, options, waitTime(options));
    }

    @Override
    public final Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys, this::checkKey);
        checkOptions(options);
        return Optional.ofNullable(MultiKeyAcquisition.tryAcquire(this, canonical, options));
    }

    /** Receives the service's lock events. */
    protected final LockEventListener listener() {
        return this.listener;
    }

    /**
     * Checks a caller's key.
     *
     * @return the key
     * @throws IllegalArgumentException naming the argument and the rule it broke
     */
    protected abstract String checkKey(@Nullable String key);

    /**
     * Checks the caller's options, and that the service can still take locks.
     *
     * @throws IllegalArgumentException for options the service does not take
     * @throws IllegalStateException when the service is closed
     */
    protected abstract void checkOptions(@Nullable LockOptions options);

    /**
     * Tries until the lock is granted or {@code waitNanos} (measured from {@code startNanos}) have passed; a zero wait
     * is a single attempt.
     *
     * @param name the lock's name for listeners and metrics
     * @return the handle, or null when the lock stayed held by another owner
     * @throws LockException when Redis failed or the waiting thread was interrupted
     */
    protected abstract @Nullable LockHandle acquireWithin(String key, LockOptions options, String name,
            long startNanos, long waitNanos);

    /** Whether {@link #acquireWithinAsync} is implemented. */
    protected boolean offersAsync() {
        return false;
    }

    /**
     * As {@link #acquireWithin}, without blocking: the future completes with the handle, with null when the lock
     * stayed held, or exceptionally with a {@link LockException}. Cancelling it withdraws the attempt. Services that
     * implement it say so in {@link #offersAsync()}.
     */
    protected CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options, String name,
            long startNanos, long waitNanos) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " offers no non-blocking calls");
    }

    private @Nullable LockHandle attempt(String key, LockOptions options, Duration wait) {
        long start = System.nanoTime();
        String name = options.nameFor(key);
        long attempt = reportStart(key, name, options);
        LockHandle handle;
        try {
            handle = acquireWithin(key, options, name, start, saturatedNanos(wait));
        }
        catch (RuntimeException ex) {
            reportFailed(attempt, key, name, start, lockFailure(key, ex));
            throw ex;
        }
        reportOutcome(attempt, key, name, start, handle);
        return handle;
    }

    /** Reports that an acquisition begins; returns its attempt number (0 when nobody listens). */
    final long reportStart(String key, String name, LockOptions options) {
        if (!Listeners.listening(this.listener)) {
            return 0;
        }
        long attempt = Listeners.nextAttempt();
        Listeners.emit(this.listener, new LockEvent.Acquiring(attempt, key, name, options.mode(),
                options.mode().isSemaphore() ? options.permits() : 0));
        return attempt;
    }

    final void reportFailed(long attempt, String key, String name, long start, LockException failure) {
        if (Listeners.listening(this.listener)) {
            Listeners.emit(this.listener, new LockEvent.AcquireFailed(attempt, key, name, since(start), failure));
        }
    }

    final void reportOutcome(long attempt, String key, String name, long start, @Nullable LockHandle handle) {
        if (!Listeners.listening(this.listener)) {
            return;
        }
        Duration waited = since(start);
        Listeners.emit(this.listener, (handle == null) ? new LockEvent.NotAcquired(attempt, key, name, waited)
                : new LockEvent.Acquired(attempt, handle, waited));
    }

    /**
     * The failure to report for an acquisition that threw {@code failure}: itself for a {@link LockException}, a
     * cancel (a non-blocking caller withdrew the attempt) as an interrupt, anything else as a failure to acquire.
     */
    static LockException lockFailure(String key, Throwable failure) {
        if (failure instanceof LockException lockFailure) {
            return lockFailure;
        }
        if (failure instanceof CancellationException) {
            return new LockInterruptedException(key, new InterruptedException("the caller withdrew the attempt"));
        }
        return new LockUnavailableException(key, "Could not acquire lock " + KeyText.quote(key) + ": " + failure,
                failure);
    }

    final Duration waitTime(LockOptions options) {
        return (options.waitTime() != null) ? options.waitTime() : this.defaultWaitTime;
    }

    /**
     * The error for an owner holding the read lock of {@code key} that asks for its write lock: a read lock is never
     * upgraded, since two readers upgrading at once would wait for each other until their waits end.
     */
    public static IllegalStateException readLockNotUpgraded(String key) {
        return new IllegalStateException("This owner holds the read lock of " + KeyText.quote(key)
                + ", which cannot be upgraded to the write lock (two readers upgrading at once would wait for each "
                + "other): release the read lock first, or take the write lock from the start");
    }

    /** The time since a {@link System#nanoTime()} reading. */
    public static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** A duration in nanoseconds, {@link Long#MAX_VALUE} for one too long to count so. */
    public static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }
}
