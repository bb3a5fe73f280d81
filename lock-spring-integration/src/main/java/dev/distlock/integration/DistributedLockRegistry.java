package dev.distlock.integration;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.integration.support.locks.LockRegistry;

import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockView;


/**
 * A Spring Integration {@link LockRegistry} on a distlock {@link LockService}: {@link #obtain(Object)} gives a
 * {@link LockView}, a {@link java.util.concurrent.locks.Lock} reentrant per thread whose lease the watchdog keeps
 * (unless the options give a fixed lease) and whose fencing token is at hand. {@code executeLocked},
 * {@code LockRegistryLeaderInitiator} and the other users of a {@code LockRegistry} work on it unchanged.
 *
 * <p>The lock of {@code lockKey} has the key {@code keyPrefix + lockKey} (default prefix
 * {@value #DEFAULT_KEY_PREFIX}). Lock keys must be strings that are valid keys: no braces, no control characters.
 * The registry keeps the locks it gave out, up to a number, so that {@code obtain} of a key gives the same lock
 * object while it is held. Thread-safe.
 */
public final class DistributedLockRegistry implements LockRegistry<LockView> {

    /** The default prefix of the keys of the registry's locks. */
    public static final String DEFAULT_KEY_PREFIX = "lock-registry:";

    /** How many unheld locks the registry keeps for reuse by default. */
    public static final int DEFAULT_CACHE_CAPACITY = 10_000;

    private final LockService locks;

    private final String keyPrefix;

    private final LockOptions options;

    private final Map<String, LockView> views;

    /** A registry of exclusive, watchdog-renewed locks whose keys start with {@value #DEFAULT_KEY_PREFIX}. */
    public DistributedLockRegistry(LockService locks) {
        this(locks, DEFAULT_KEY_PREFIX, LockOptions.defaults(), DEFAULT_CACHE_CAPACITY);
    }

    /**
     * A registry whose keys start with {@code keyPrefix} (may be empty), taking every lock with {@code options}
     * (their wait time is ignored, see {@link LockView}), and keeping up to {@code cacheCapacity} unheld locks.
     *
     * @throws IllegalArgumentException when an argument is null, {@code options} name an owner, or
     * {@code cacheCapacity} is negative
     */
    public DistributedLockRegistry(LockService locks, String keyPrefix, LockOptions options, int cacheCapacity) {
        if (locks == null || keyPrefix == null || options == null) {
            throw new IllegalArgumentException("lockService, keyPrefix and options must not be null");
        }
        if (options.owner() != null) {
            throw new IllegalArgumentException("options must not name an owner: the owner of a registry's lock is "
                    + "the calling thread, but was " + options.owner());
        }
        if (cacheCapacity < 0) {
            throw new IllegalArgumentException("cacheCapacity must not be negative, but was " + cacheCapacity);
        }
        this.locks = locks;
        this.keyPrefix = keyPrefix;
        this.options = options;
        this.views = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, LockView> eldest) {
                // the least recently used unheld locks go; a held lock stays, so its holder can still unlock it
                Iterator<LockView> oldestFirst = values().iterator();
                while (size() > cacheCapacity && oldestFirst.hasNext()) {
                    if (!oldestFirst.next().isLocked()) {
                        oldestFirst.remove();
                    }
                }
                return false;
            }
        };
    }

    /**
     * The lock of {@code lockKey}; nothing is written to Redis until it is locked.
     *
     * @throws IllegalArgumentException when {@code lockKey} is not a String (a key that is no valid key fails at the
     * first lock)
     */
    @Override
    public LockView obtain(Object lockKey) {
        if (!(lockKey instanceof String name)) {
            throw new IllegalArgumentException("lockKey must be a String, but was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        String key = this.keyPrefix + name;
        synchronized (this.views) {
            return this.views.computeIfAbsent(key, k -> LockView.of(this.locks, k, this.options));
        }
    }

    @Override
    public String toString() {
        return "DistributedLockRegistry[keyPrefix=" + this.keyPrefix + ", options=" + this.options + "]";
    }
}
