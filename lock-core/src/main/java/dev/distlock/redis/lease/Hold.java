package dev.distlock.redis.lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.LeaseLostException;
import dev.distlock.LockMode;
import dev.distlock.redis.script.LockTarget;
import dev.distlock.redis.script.LockType;

/**
 * One owner's hold on one lock: the owner token in Redis, the reentrant acquisitions open under it, and the lease as
 * this process knows it. Handles of the same owner and key share a hold. Each acquisition keeps its own lease: the
 * hold's lease is renewed while any open handle asked for the watchdog, and otherwise ends at the latest fixed lease
 * deadline of its open handles, as in Redis (see release.lua).
 */
public final class Hold implements LockTarget {

    private final HoldKey holdKey;

    private final LockType type;

    private final String releaseChannel;

    private final String ownerToken;

    /**
     * Hold ids, unique in this JVM, so that one owner token never uses one twice: owners share a token between the
     * holds of a read/write lock's two sides, and a retried or replayed call must only ever match the acquisition it
     * retries (see end-hold.lua).
     */
    private static final AtomicLong holdIds = new AtomicLong();

    /** The granted, unreleased handles: whose lease-lost callbacks run, and whose leases make the hold's. */
    private final Set<LeaseHolder> handles = new LinkedHashSet<>(); // guarded by this

    /** Open acquisitions, counted before their Redis call so that a concurrent release never ends the hold early. */
    private int openHolds; // guarded by this

    /** Every acquisition released: nothing of this hold is left to renew or report. */
    private boolean finished; // guarded by this

    private volatile @Nullable LeaseLostException lost;

    /** When the lease ends unless renewed, on {@link System#nanoTime()}; measured from before the Redis call. */
    private volatile long deadlineNanos;

    /** When the lease was last granted or renewed, on {@link System#nanoTime()}: when that Redis call was sent. */
    private volatile long renewedNanos;

    /** When the lock was granted, on this machine's clock; set with {@link #firstHandle}. */
    private volatile @Nullable Instant grantedAt;

    /** Whether the watchdog renews this hold. */
    volatile boolean watched;

    /** The first handle of the hold: the one listeners are told about when the lease is lost. */
    private volatile @Nullable LeaseHolder firstHandle;

    public Hold(HoldKey holdKey, LockType type, String releaseChannel, String ownerToken) {
        this.holdKey = holdKey;
        this.type = type;
        this.releaseChannel = releaseChannel;
        this.ownerToken = ownerToken;
    }

    @Override
    public String key() {
        return this.holdKey.key();
    }

    @Override
    public String ownerToken() {
        return this.ownerToken;
    }

    @Override
    public String releaseChannel() {
        return this.releaseChannel;
    }

    /** Who owns the hold: the owner, the key and the type of lock. */
    public HoldKey holdKey() {
        return this.holdKey;
    }

    /** The type of lock, which knows its Redis structures and scripts. */
    public LockType type() {
        return this.type;
    }

    /** The first handle of the hold, which listeners are told about when the lease is lost; null before a grant. */
    public @Nullable LeaseHolder firstHandle() {
        return this.firstHandle;
    }

    /** A new acquisition's id: never used before in this JVM (see {@link #holdIds}). */
    public String nextHoldId() {
        return Long.toString(holdIds.incrementAndGet());
    }

    /** Counts one more acquisition, unless the hold has ended or its lease is lost. */
    public synchronized boolean open() {
        if (this.finished || this.lost != null) {
            return false;
        }
        this.openHolds++;
        return true;
    }

    /**
     * Counts one acquisition fewer (released, or never granted).
     *
     * @return whether that was the last one, which ends the hold
     */
    public synchronized boolean close() {
        if (--this.openHolds == 0) {
            this.finished = true;
            return true;
        }
        return false;
    }

    /** Ended: every acquisition released, or the lease lost. */
    public synchronized boolean isOver() {
        return this.finished || this.lost != null;
    }

    synchronized boolean isFinished() {
        return this.finished;
    }

    /** Whether the lease is held as far as this process knows: not lost and not past its deadline. */
    public boolean isValid() {
        return this.lost == null && System.nanoTime() - this.deadlineNanos < 0;
    }

    public long deadlineNanos() {
        return this.deadlineNanos;
    }

    long renewedNanos() {
        return this.renewedNanos;
    }

    /** Adds a granted handle, whose lease Redis confirmed from no earlier than {@code sentNanos}. */
    public synchronized void granted(LeaseHolder handle, long sentNanos, long leaseNanos) {
        if (this.firstHandle == null) {
            this.grantedAt = Instant.now();
            this.firstHandle = handle;
        }
        this.handles.add(handle);
        extendDeadline(sentNanos, leaseNanos);
    }

    /**
     * Removes a released handle, so that its callbacks no longer run. When no remaining handle is renewed by the
     * watchdog, the lease comes back to the latest fixed deadline among them.
     *
     * @return whether a remaining handle is renewed by the watchdog
     */
    public synchronized boolean released(LeaseHolder handle) {
        this.handles.remove(handle);
        long latest = 0;
        for (LeaseHolder open : this.handles) {
            if (open.renewedByWatchdog()) {
                return true;
            }
            if (latest == 0 || open.fixedDeadlineNanos() - latest > 0) {
                latest = open.fixedDeadlineNanos();
            }
        }
        if (latest != 0) {
            this.deadlineNanos = latest;
        }
        return false;
    }

    /** Moves the deadline forward (never back) after Redis confirmed a lease that started no earlier than sentNanos. */
    synchronized void extendDeadline(long sentNanos, long leaseNanos) {
        long deadline = sentNanos + leaseNanos;
        if (this.deadlineNanos == 0 || deadline - this.deadlineNanos > 0) {
            this.deadlineNanos = deadline;
            this.renewedNanos = sentNanos;
        }
    }

    /** What the hold is now, or null when it is over, past its deadline or not fully granted yet. */
    public @Nullable HeldLock snapshot() {
        LeaseHolder first = this.firstHandle;
        Instant granted = this.grantedAt;
        int count;
        synchronized (this) {
            if (this.finished || this.lost != null || this.openHolds <= 0) {
                return null;
            }
            count = this.openHolds;
        }
        long remainingNanos = this.deadlineNanos - System.nanoTime();
        if (first == null || granted == null || remainingNanos <= 0) {
            return null;
        }
        Object owner = this.holdKey.owner();
        String ownerText = (owner instanceof Thread thread) ? "thread " + thread.getName() : String.valueOf(owner);
        return new HeldLock(key(), first.name(), this.holdKey.mode(), granted, Instant.now().plusNanos(remainingNanos),
                first.fencingToken(), ownerText, count, this.watched);
    }

    /**
     * Records the loss.
     *
     * @return whether this call recorded it (false when it was already lost)
     */
    public synchronized boolean markLost(LeaseLostException reason) {
        if (this.lost != null) {
            return false;
        }
        this.lost = reason;
        return true;
    }

    /** The loss, once {@link #markLost} recorded it. */
    public @Nullable LeaseLostException lostReason() {
        return this.lost;
    }

    /** Calls the lease-lost callbacks of every unreleased handle once, after {@link #markLost}. */
    public void runLostCallbacks(LeaseLostException reason) {
        List<LeaseHolder> open;
        synchronized (this) {
            open = new ArrayList<>(this.handles);
        }
        for (LeaseHolder handle : open) {
            handle.leaseLost(reason);
        }
    }

    /**
     * Who owns a hold, for reentrancy: an owner object (by default the thread), the lock's key and the type of lock.
     */
    public record HoldKey(Object owner, String key, LockMode mode) {
    }
}
