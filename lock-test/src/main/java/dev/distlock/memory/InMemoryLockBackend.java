package dev.distlock.memory;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockInstance;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.internal.Listeners;
import dev.distlock.internal.LockBackend;
import dev.distlock.memory.MemoryHold.Owner;
import dev.distlock.memory.MemoryHold.PermitHolder;
import dev.distlock.redis.script.LockKeys;

/**
 * One in-memory service's side of its store, below the shared skeleton: checks a call's key, options and that the
 * service is open, and asks the store for the lock. It is also who owns the service's holds in the store (with its
 * instance, its watchdog lease and its listener for what the store reports), as an instance on Redis would be.
 */
final class InMemoryLockBackend implements LockBackend {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final InMemoryLockStore store;

    private final LockEventListener listener;

    private final Duration watchdogLease;

    private final LockInstance instance = newInstance();

    private volatile boolean closed;

    InMemoryLockBackend(InMemoryLockStore store, LockEventListener listener, Duration watchdogLease) {
        this.store = store;
        this.listener = listener;
        this.watchdogLease = watchdogLease;
    }

    @Override
    public String checkKey(@Nullable String key) {
        return LockKeys.checkKey(key);
    }

    @Override
    public void checkOptions(@Nullable LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (options.mode().isSemaphore() && options.permitLimit() == 0) {
            throw new IllegalArgumentException("A " + options.mode() + " needs its limit: use withPermits(limit)");
        }
        if (this.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
    }

    @Override
    public @Nullable LockHandle acquireWithin(String key, LockOptions options, String name, long startNanos,
            long waitNanos) {
        CompletableFuture<@Nullable LockHandle> attempt = this.store.acquire(owner(options, Thread.currentThread()),
                key, options, name, remaining(startNanos, waitNanos));
        try {
            return attempt.get();
        }
        catch (InterruptedException ex) {
            if (!attempt.cancel(false)) {
                LockHandle handle = attempt.getNow(null); // granted just before the interrupt: nobody receives it
                if (handle != null) {
                    handle.release();
                }
            }
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, ex);
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof RuntimeException failure) ? failure : new IllegalStateException(ex);
        }
    }

    /** As on the Redis service, an acquisition without an owner is an owner of its own. */
    @Override
    public CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options, String name,
            long startNanos, long waitNanos) {
        return this.store.acquire(owner(options, null), key, options, name, remaining(startNanos, waitNanos));
    }

    /**
     * Who owns an acquisition, as on the Redis service: the options' owner, else the calling thread of a blocking
     * call, else the non-blocking call itself; every semaphore acquisition is a holder of its own.
     */
    private Owner owner(LockOptions options, @Nullable Thread caller) {
        if (options.mode().isSemaphore()) {
            return new Owner(this, new PermitHolder(caller));
        }
        Object owner = options.owner();
        return new Owner(this, (owner != null) ? owner : (caller != null) ? caller : new Object());
    }

    /** Stops taking locks, and tells the store, as a process that stops (see the service's {@code close()}). */
    void close() {
        this.closed = true;
        this.store.closed(this);
    }

    /** The service as a holder's instance: no Redis record, its id made at build. */
    LockInstance instance() {
        return this.instance;
    }

    Duration watchdogLease() {
        return this.watchdogLease;
    }

    void emit(LockEvent event) {
        Listeners.emit(this.listener, event);
    }

    private static LockInstance newInstance() {
        Instant now = Instant.now();
        return new LockInstance(HexFormat.of().formatHex(ByteBuffer.allocate(8).putLong(RANDOM.nextLong()).array()),
                "in-memory", null, ProcessHandle.current().pid(), now, now);
    }

    private static long remaining(long startNanos, long waitNanos) {
        return (waitNanos == Long.MAX_VALUE) ? waitNanos : Math.max(0, waitNanos - (System.nanoTime() - startNanos));
    }
}
