package dev.distlock.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.KeyText;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;

/**
 * The acquisition skeleton every service shares: checks the request, applies the wait limit, names the lock and tells
 * the listener that an acquisition began and what came of it (acquired, not acquired, failed), for single keys and for
 * key sets. A service hands it its {@link LockBackend}: the key rules, the option rules and the attempt that tries
 * until the lock is granted or the wait ends, which the skeleton calls and which calls nothing back.
 */
public abstract class AbstractLockService implements LockService {

    private final AcquisitionReports reports;

    private final Duration defaultWaitTime;

    private final LockBackend backend;

    private final AsyncLocks async;

    /**
     * @param backend checks this service's calls and takes its locks; the skeleton's only way to the service's engine
     */
    protected AbstractLockService(LockEventListener listener, Duration defaultWaitTime, LockBackend backend) {
        this.reports = new AcquisitionReports(listener);
        this.defaultWaitTime = defaultWaitTime;
        this.backend = backend;
        this.async = new AsyncLocks(backend, this::waitTime, this.reports);
    }

    /** The non-blocking side, on the backend's {@link LockBackend#acquireWithinAsync}. */
    @Override
    public AsyncLockService async() {
        return this.async;
    }

    @Override
    public final LockHandle acquire(String key, LockOptions options) {
        this.backend.checkKey(key);
        this.backend.checkOptions(options);
        long start = System.nanoTime();
        LockHandle handle = attempt(key, options, waitTime(options));
        if (handle == null) {
            throw new LockTimeoutException(key, Durations.since(start));
        }
        return handle;
    }

    @Override
    public final Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        this.backend.checkKey(key);
        this.backend.checkOptions(options);
        return Optional.ofNullable(attempt(key, options, Duration.ZERO));
    }

    @Override
    public final MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys, this.backend);
        this.backend.checkOptions(options);
        return MultiKeyAcquisition.acquire(this, canonical, options, waitTime(options));
    }

    @Override
    public final Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys, this.backend);
        this.backend.checkOptions(options);
        return Optional.ofNullable(MultiKeyAcquisition.tryAcquire(this, canonical, options));
    }

    /** Receives the service's lock events. */
    protected final LockEventListener listener() {
        return this.reports.listener();
    }

    private @Nullable LockHandle attempt(String key, LockOptions options, Duration wait) {
        long start = System.nanoTime();
        String name = options.nameFor(key);
        long attempt = this.reports.started(key, name, options);
        LockHandle handle;
        try {
            handle = this.backend.acquireWithin(key, options, name, start, Durations.saturatedNanos(wait));
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
