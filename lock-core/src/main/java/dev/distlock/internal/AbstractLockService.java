package dev.distlock.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.KeyText;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;

/**
 * The acquisition skeleton every service shares: checks the request, applies the wait limit, names the lock and tells
 * the listener that an acquisition began and what came of it (acquired, not acquired, failed), for single keys and for
 * key sets. A service supplies the key rules, the option rules and {@link #acquireWithin}, which tries until the lock
 * is granted or the wait ends.
 */
public abstract class AbstractLockService implements LockService {

    private final AcquisitionReports reports;

    private final Duration defaultWaitTime;

    private final AsyncLocks async;

    protected AbstractLockService(LockEventListener listener, Duration defaultWaitTime) {
        this.reports = new AcquisitionReports(listener);
        this.defaultWaitTime = defaultWaitTime;
        this.async = new AsyncLocks(this::checkKey, this::checkOptions, this::waitTime, this::acquireWithinAsync,
                this.reports);
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
            throw new LockTimeoutException(key, Durations.since(start));
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
        return this.reports.listener();
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
        long attempt = this.reports.started(key, name, options);
        LockHandle handle;
        try {
            handle = acquireWithin(key, options, name, start, Durations.saturatedNanos(wait));
        }
        catch (RuntimeException ex) {
            this.reports.failed(attempt, key, name, start, ex);
            throw ex;
        }
        this.reports.ended(attempt, key, name, start, handle);
        return handle;
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
}
