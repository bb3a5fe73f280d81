package dev.distlock.shedlock;

import java.time.Duration;
import java.util.Optional;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import dev.distlock.LeaseExpiredOnArrivalException;
import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;


/**
 * One ShedLock lock: a {@link LockHandle} with a fixed lease. {@link AbstractSimpleLock} refuses a second unlock or
 * extension, and an unlock after an extension.
 */
final class DistributedSimpleLock extends AbstractSimpleLock {

    private final LockService locks;

    private final String key;

    /** The lock's options without a lease; the owner is this lock's own, so an extension re-enters it. */
    private final LockOptions options;

    private final LockHandle handle;

    private final LeaseReport report;

    DistributedSimpleLock(LockService locks, LockConfiguration configuration, String key, LockOptions options,
            LockHandle handle, LeaseReport report) {
        super(configuration);
        this.locks = locks;
        this.key = key;
        this.options = options;
        this.handle = handle;
        this.report = report;
        handle.onLeaseLost(report::lost);
    }

    @Override
    protected void doUnlock() {
        Duration atLeast = Duration.between(ClockProvider.now(), this.lockConfiguration.getLockAtLeastUntil());
        try {
            if (atLeast.compareTo(Duration.ZERO) > 0) { // a part of a millisecond too: the service rounds it up
                this.handle.releaseAfter(atLeast);
            }
            else {
                this.handle.release();
            }
        }
        catch (LeaseLostException ex) {
            this.report.lost(ex); // logged once; the job has finished, so there is nothing left to stop
        }
    }

    /**
     * Re-enters the lock with the new {@code lockAtMostFor} as its lease, which Redis applies to the lock at once,
     * then ends this acquisition, which leaves the lease alone. A re-entry that got a new fencing token found the lock
     * free, so the old lease had run out: that grant is undone and the extension fails.
     */
    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration configuration) {
        if (!this.handle.isHeld()) {
            releaseQuietly(this.handle);
            return Optional.empty();
        }
        Optional<LockHandle> extended;
        try {
            extended = this.locks.tryAcquire(this.key, DistributedLockProvider.leased(this.options, configuration));
        }
        catch (LeaseExpiredOnArrivalException ex) { // the new lease ended before Redis's answer came: not extended
            releaseQuietly(this.handle);
            return Optional.empty();
        }
        if (extended.isEmpty()) { // another owner holds it: the lease was lost, and the service reported that
            releaseQuietly(this.handle);
            return Optional.empty();
        }
        LockHandle next = extended.get();
        if (next.fencingToken() != this.handle.fencingToken()) {
            releaseQuietly(next);
            releaseQuietly(this.handle);
            return Optional.empty();
        }
        releaseQuietly(this.handle);
        return Optional.of(new DistributedSimpleLock(this.locks, configuration, this.key, this.options, next,
                this.report));
    }

    private void releaseQuietly(LockHandle acquisition) {
        try {
            acquisition.release();
        }
        catch (LeaseLostException ex) {
            this.report.lost(ex);
        }
        catch (LockException ex) {
            // Redis failed: the lock expires at the end of its lease, and the service logged the failure
        }
    }

    @Override
    public String toString() {
        return "DistributedSimpleLock[" + this.lockConfiguration + ", fencingToken=" + this.handle.fencingToken() + "]";
    }
}
