package dev.distlock.memory;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.LockEventListener;
import dev.distlock.LockInspection;
import dev.distlock.LockInstance;
import dev.distlock.LockService;
import dev.distlock.LockStatus;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.Listeners;

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

    private final InMemoryLockBackend backend;

    private InMemoryLockService(Builder builder) {
        this(builder, new InMemoryLockBackend(builder.store, builder.listener, builder.watchdogLease));
    }

    private InMemoryLockService(Builder builder, InMemoryLockBackend backend) {
        super(builder.listener, builder.defaultWaitTime, backend);
        this.store = builder.store;
        this.backend = backend;
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
    public List<HeldLock> heldLocks() {
        return this.store.heldLocks(this.backend);
    }

    @Override
    public int renewingCount() {
        return (int) heldLocks().stream().filter(HeldLock::watchdog).count();
    }

    /** A third of the watchdog lease, as on the Redis service; nothing is renewed in memory. */
    @Override
    public Duration renewalInterval() {
        return this.backend.watchdogLease().dividedBy(3);
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
        return this.store.inspect(this.backend.checkKey(key));
    }

    /** This service as a holder's instance: no Redis record, its id made at build. */
    LockInstance instance() {
        return this.backend.instance();
    }

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
        this.backend.close();
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
