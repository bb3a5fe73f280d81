package dev.distlock.shedlock;

import java.util.Optional;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import dev.distlock.LeaseExpiredOnArrivalException;
import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;


/**
 * A ShedLock {@link ExtensibleLockProvider} on a distlock {@link LockService}, so that {@code @SchedulerLock} jobs get
 * fencing tokens, lost-lease reports, Redis Cluster and quorum mode without changing.
 *
 * <ul>
 * <li>{@code lockAtMostFor} is a fixed lease (no watchdog): Redis frees the lock when it ends;</li>
 * <li>{@code lockAtLeastFor} is kept by an unlock that leaves the lock held for the rest of it
 * ({@link LockHandle#releaseAfter});</li>
 * <li>{@link SimpleLock#extend} sets the lease to at least the new {@code lockAtMostFor} in one step, without a moment
 * when the lock is free; it fails (empty) when the lease had run out;</li>
 * <li>locks are not reentrant, as ShedLock's are not: a second {@code lock} of a held name is refused, also in the
 * same thread;</li>
 * <li>a lost lease (the job outran {@code lockAtMostFor}) is logged as a warning, and the unlock then does not
 * throw;</li>
 * <li>while Redis cannot give a lock (unreachable, or in its restart grace) the job is skipped, as when another node
 * holds the lock: one WARN when the outage begins, one INFO when Redis answers again, and no stack trace each
 * tick.</li>
 * </ul>
 *
 * <p>The key of a lock is the prefix (default {@value #DEFAULT_KEY_PREFIX}) followed by ShedLock's lock name, so the
 * name must be a valid key: no braces, no control characters. Metrics and traces show ShedLock's lock name. Thread-safe.
 */
public final class DistributedLockProvider implements ExtensibleLockProvider {

    /** The default prefix of the keys of ShedLock's locks. */
    public static final String DEFAULT_KEY_PREFIX = "shedlock:";

    private final LockService locks;

    private final String keyPrefix;

    private final OutageReport outage = new OutageReport();

    /** A provider whose keys start with {@value #DEFAULT_KEY_PREFIX}. */
    public DistributedLockProvider(LockService locks) {
        this(locks, DEFAULT_KEY_PREFIX);
    }

    /**
     * A provider whose keys start with {@code keyPrefix} (may be empty).
     *
     * @throws IllegalArgumentException when an argument is null
     */
    public DistributedLockProvider(LockService locks, String keyPrefix) {
        if (locks == null || keyPrefix == null) {
            throw new IllegalArgumentException("lockService and keyPrefix must not be null");
        }
        this.locks = locks;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Makes one attempt to take the lock for {@code lockAtMostFor}; empty when another node holds it, and when Redis
     * cannot give it (unreachable, or refusing new locks for its restart grace: logged once per outage). A grant whose
     * answer came after {@code lockAtMostFor} had run out is a lock already expired, as with ShedLock's own providers:
     * the job runs and the lost lease is logged.
     *
     * @throws IllegalArgumentException when the lock's name is no valid key or {@code lockAtMostFor} is out of range
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        String key = this.keyPrefix + configuration.getName();
        // A fresh owner per lock: ShedLock's locks are not reentrant, even within one thread.
        LockOptions options = options(configuration).withOwner(new Object());
        LeaseReport report = new LeaseReport(configuration.getName());
        Optional<LockHandle> handle;
        LockOptions leased = leased(options, configuration);
        try {
            handle = this.locks.tryAcquire(key, leased);
        }
        catch (LeaseExpiredOnArrivalException ex) {
            this.outage.answered();
            report.lost(new LeaseLostException(key, ex.getMessage(), ex));
            return Optional.of(new ExpiredSimpleLock(configuration));
        }
        catch (LockUnavailableException ex) {
            this.outage.failed(configuration.getName(), ex);
            return Optional.empty();
        }
        this.outage.answered();
        return handle.map(held -> new DistributedSimpleLock(this.locks, configuration, key, options, held, report));
    }

    private static LockOptions options(LockConfiguration configuration) {
        LockOptions options = LockOptions.defaults();
        try {
            return options.withName(configuration.getName());
        }
        catch (IllegalArgumentException ex) {
            return options; // a name too long for metrics: named after the key's first part
        }
    }

    /** The options with {@code lockAtMostFor} as the fixed lease, refused with ShedLock's own name for it. */
    static LockOptions leased(LockOptions options, LockConfiguration configuration) {
        try {
            return options.withLeaseTime(configuration.getLockAtMostFor());
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("lockAtMostFor of ShedLock lock '" + configuration.getName()
                    + "' is out of range: " + ex.getMessage(), ex);
        }
    }

    @Override
    public String toString() {
        return "DistributedLockProvider[keyPrefix=" + this.keyPrefix + "]";
    }
}
