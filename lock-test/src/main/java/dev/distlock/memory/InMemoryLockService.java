package dev.distlock.memory;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInspection;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.Listeners;
import dev.distlock.memory.MemoryHold.Owner;
import dev.distlock.redis.script.LockKeys;

/**
 * A {@link LockService} in memory, for unit tests of code that takes locks: no Redis, no threads per lock, the
 * semantics of the Redis service within one JVM. Key and option checks, exclusive, read/write and fair locks,
 * reentrancy per owner, fixed leases that run out and watchdog leases that last until released, fencing tokens that
 * increase per key, {@link #acquireAll key sets}, {@link #async()}, listener events and {@link LockInspection} all
 * behave as documented on {@link LockService}. Thread-safe.
 *
 * <pre>{@code
 * InMemoryLockService locks = InMemoryLockService.create();
 * OrderService orders = new OrderService(locks);
 * }</pre>
 *
 * <p>Services made on one {@link InMemoryLockStore} exclude each other like two processes on one Redis
 * ({@code store.newService()}); {@link InMemoryLockStore#expire(String)} makes a held lock vanish, to test what the
 * code does with a lost lease. What it cannot show: Redis being unreachable, slow or restarted, and anything between
 * processes; test those against a real Redis (see docs/testing.md).
 */
public final class InMemoryLockService extends AbstractLockService implements LockInspection, AutoCloseable {

    private final InMemoryLockStore store;

    private final LockEventListener listener;

    private final Duration watchdogLease;

    private final String ownerToken = UUID.randomUUID().toString();

    private volatile boolean closed;

    private InMemoryLockService(Builder builder) {
        super(builder.listener, builder.defaultWaitTime);
        this.store = builder.store;
        this.listener = builder.listener;
        this.watchdogLease = builder.watchdogLease;
    }

    /** A service with a store of its own and the defaults of {@link #builder()}. */
    public static InMemoryLockService create() {
        return builder().build();
    }

    /** A builder with the Redis service's defaults: a wait of 10 s, a watchdog lease of 30 s, no listener. */
    public static Builder builder() {
        return new Builder();
    }

    /** The store of this service's locks: for {@link InMemoryLockStore#expire} and more services on it. */
    public InMemoryLockStore store() {
        return this.store;
    }

    @Override
    protected String checkKey(@Nullable String key) {
        return LockKeys.checkKey(key);
    }

    @Override
    protected void checkOptions(@Nullable LockOptions options) {
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (options.mode().isSemaphore()) {
            throw new UnsupportedOperationException("InMemoryLockService offers no semaphores yet");
        }
        if (this.closed) {
            throw new IllegalStateException("InMemoryLockService is closed");
        }
    }

    @Override
    protected @Nullable LockHandle acquireWithin(String key, LockOptions options, String name, long startNanos,
            long waitNanos) {
        Object owner = (options.owner() != null) ? options.owner() : Thread.currentThread();
        CompletableFuture<@Nullable LockHandle> attempt = this.store.acquire(new Owner(this, owner), key, options,
                name, remaining(startNanos, waitNanos));
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
            throw (ex.getCause() instanceof LockException failure) ? failure : new IllegalStateException(ex);
        }
    }

    @Override
    protected boolean offersAsync() {
        return true;
    }

    /** As on the Redis service, an acquisition without an owner is an owner of its own. */
    @Override
    protected CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options,
            String name, long startNanos, long waitNanos) {
        Object owner = (options.owner() != null) ? options.owner() : new Object();
        return this.store.acquire(new Owner(this, owner), key, options, name, remaining(startNanos, waitNanos));
    }

    @Override
    public List<HeldLock> heldLocks() {
        return this.store.heldLocks(this);
    }

    @Override
    public int renewingCount() {
        return (int) heldLocks().stream().filter(HeldLock::watchdog).count();
    }

    /** A third of the watchdog lease, as on the Redis service; nothing is renewed in memory. */
    @Override
    public Duration renewalInterval() {
        return this.watchdogLease.dividedBy(3);
    }

    /** Always zero: a watchdog lease in memory lasts until it is released. */
    @Override
    public int overdueRenewalCount() {
        return 0;
    }

    /** Zero: there is no Redis to ask. */
    @Override
    public Duration ping() {
        return Duration.ZERO;
    }

    /** Refuses new acquisitions and ends this service's holds and waits, as a stopped process's leases would end. */
    @Override
    public void close() {
        this.closed = true;
        this.store.closed(this);
    }

    String ownerToken() {
        return this.ownerToken;
    }

    Duration watchdogLease() {
        return this.watchdogLease;
    }

    void emit(LockEvent event) {
        Listeners.emit(this.listener, event);
    }

    private static long remaining(long startNanos, long waitNanos) {
        return (waitNanos == Long.MAX_VALUE) ? waitNanos : Math.max(0, waitNanos - (System.nanoTime() - startNanos));
    }

    @Override
    public String toString() {
        return "InMemoryLockService[holds=" + heldLocks().size() + "]";
    }

    /** Builds an {@link InMemoryLockService}; every setter checks its argument at once. */
    public static final class Builder {

        private InMemoryLockStore store = new InMemoryLockStore();

        private LockEventListener listener = Listeners.NONE;

        private Duration defaultWaitTime = Duration.ofSeconds(10);

        private Duration watchdogLease = Duration.ofSeconds(30);

        private Builder() {
        }

        /** The store to share with other services, as processes share one Redis; a new store by default. */
        public Builder store(InMemoryLockStore store) {
            this.store = require(store, "store");
            return this;
        }

        /** Receives the lock events, as on the Redis service. */
        public Builder listener(LockEventListener listener) {
            this.listener = require(listener, "listener");
            return this;
        }

        /** How long {@code acquire} waits when the options name no wait time. */
        public Builder defaultWaitTime(Duration defaultWaitTime) {
            require(defaultWaitTime, "defaultWaitTime");
            if (defaultWaitTime.isNegative()) {
                throw new IllegalArgumentException("defaultWaitTime must not be negative, but was " + defaultWaitTime);
            }
            this.defaultWaitTime = defaultWaitTime;
            return this;
        }

        /** The lease a watchdog-renewed handle shows in {@code leaseDeadline()}; it never runs out in memory. */
        public Builder watchdogLease(Duration watchdogLease) {
            require(watchdogLease, "watchdogLease");
            if (watchdogLease.compareTo(Duration.ofMillis(3)) < 0) {
                throw new IllegalArgumentException("watchdogLease must be at least 3ms, but was " + watchdogLease);
            }
            this.watchdogLease = watchdogLease;
            return this;
        }

        public InMemoryLockService build() {
            return new InMemoryLockService(this);
        }

        private static <T> T require(@Nullable T value, String name) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must not be null");
            }
            return value;
        }
    }
}
