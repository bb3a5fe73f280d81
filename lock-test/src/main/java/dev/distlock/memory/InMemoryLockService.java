package dev.distlock.memory;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockInspection;
import dev.distlock.LockInstance;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockStatus;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.Listeners;
import dev.distlock.memory.MemoryHold.Owner;
import dev.distlock.memory.MemoryHold.PermitHolder;
import dev.distlock.redis.script.LockKeys;

/**
 * A {@link LockService} in memory, for unit tests of code that takes locks: no Redis, no threads per lock, the
 * semantics of the Redis service within one JVM. Key and option checks, exclusive, read/write and fair locks,
 * semaphores ({@link dev.distlock.LockOptions#withPermits}: limit, fair order, a lease and a fencing token per
 * acquisition), reentrancy per owner, owner tokens per hold, fixed leases that run out and watchdog leases that last
 * until released, fencing tokens that start from the clock in microseconds and increase per key, what
 * {@link #close()} leaves held, {@link #acquireAll key sets}, {@link #async()}, listener events and
 * {@link LockInspection} all behave as documented on {@link LockService}; the shared contract test of the Redis
 * service runs against it too. Thread-safe.
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

    private volatile boolean closed;

    private final LockInstance instance = newInstance();

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
        if (options.mode().isSemaphore() && options.permitLimit() == 0) {
            throw new IllegalArgumentException("A " + options.mode() + " needs its limit: use withPermits(limit)");
        }
        if (this.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
    }

    @Override
    protected @Nullable LockHandle acquireWithin(String key, LockOptions options, String name, long startNanos,
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

    @Override
    protected boolean offersAsync() {
        return true;
    }

    /** As on the Redis service, an acquisition without an owner is an owner of its own. */
    @Override
    protected CompletableFuture<@Nullable LockHandle> acquireWithinAsync(String key, LockOptions options,
            String name, long startNanos, long waitNanos) {
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

    /**
     * The key's locks in this service's store, as {@link LockInspection#inspect} reads them from Redis: each holder's
     * instance is the service that holds it (host {@code "in-memory"}, this process's id), its owner and since are
     * always known.
     */
    @Override
    public List<LockStatus> inspect(String key) {
        return this.store.inspect(checkKey(key));
    }

    /** This service as a holder's instance: no Redis record, its id made at build. */
    LockInstance instance() {
        return this.instance;
    }

    private static LockInstance newInstance() {
        Instant now = Instant.now();
        return new LockInstance(HexFormat.of().formatHex(ByteBuffer.allocate(8).putLong(RANDOM.nextLong()).array()),
                "in-memory", null, ProcessHandle.current().pid(), now, now);
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Zero: there is no Redis to ask. */
    @Override
    public Duration ping() {
        return Duration.ZERO;
    }

    /**
     * Stops this service as if its process had died, as the Redis service's {@code close()} does: locks and permits
     * still held are not released but stay held until their lease ends (a watchdog lease one watchdog lease from now)
     * or their handle is released, which still works; no lease-lost callback runs. Callers waiting for a lock stop
     * with {@link IllegalStateException}, and so do new calls.
     */
    @Override
    public void close() {
        this.closed = true;
        this.store.closed(this);
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
