package dev.distlock.memory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockMode;

/**
 * One owner's hold on one lock, as the lock hash in Redis keeps it: the fencing token of the grant and the reentrant
 * acquisitions open under it. The lease is renewed while any open acquisition asked for the watchdog (in one JVM the
 * watchdog cannot fail, so such a hold never runs out), and otherwise ends at the latest fixed deadline among them.
 * Guarded by the store's monitor, except the volatile loss.
 */
final class MemoryHold {

    /** The owner of a hold kept after its last release by {@code releaseAfter}: nobody re-enters it. */
    private static final Object LINGERING = new Object();

    final Owner owner;

    final LockMode mode;

    /** The owner token of the hold: random, shared by its re-entries (and by a write hold and its owner's read). */
    final String ownerToken;

    /** A semaphore holder's permits; 0 for a lock. */
    final int permits;

    final long fencingToken;

    final Instant since = Instant.now();

    /** The grant's order in the store, for oldest-first listings. */
    final long sequence;

    private final List<MemoryLockHandle> handles = new ArrayList<>();

    /**
     * When the lease ends, on {@link System#nanoTime()}; {@link Long#MAX_VALUE} while the watchdog renews it. Kept
     * up to date at every change, so that a handle reads it without the store's monitor.
     */
    private volatile long deadlineNanos;

    /** Once the owner's service is closed, when the watchdog's last renewal runs out; 0 while it renews. */
    private long renewedUntilNanos;

    private volatile @Nullable LeaseLostException lost;

    MemoryHold(Owner owner, LockMode mode, String ownerToken, int permits, long fencingToken, long sequence) {
        this(owner, mode, ownerToken, permits, fencingToken, sequence, 0);
    }

    private MemoryHold(Owner owner, LockMode mode, String ownerToken, int permits, long fencingToken, long sequence,
            long lingerUntilNanos) {
        this.owner = owner;
        this.mode = mode;
        this.ownerToken = ownerToken;
        this.permits = permits;
        this.fencingToken = fencingToken;
        this.sequence = sequence;
        this.deadlineNanos = lingerUntilNanos;
    }

    /** A hold of nobody that keeps the lock (or the permits) of {@code ended} until {@code untilNanos}. */
    static MemoryHold lingering(MemoryHold ended, long untilNanos) {
        return new MemoryHold(new Owner(ended.owner.service(), LINGERING), ended.mode, ended.ownerToken,
                ended.permits, ended.fencingToken, ended.sequence, untilNanos);
    }

    void add(MemoryLockHandle handle) {
        this.handles.add(handle);
        this.deadlineNanos = latestDeadline();
    }

    /** Ends one acquisition; returns whether it was the last. */
    boolean remove(MemoryLockHandle handle) {
        this.handles.remove(handle);
        if (this.handles.isEmpty()) {
            return true;
        }
        this.deadlineNanos = latestDeadline();
        return false;
    }

    List<MemoryLockHandle> handles() {
        return new ArrayList<>(this.handles);
    }

    boolean watchdog() {
        for (MemoryLockHandle handle : this.handles) {
            if (handle.watchdog) {
                return true;
            }
        }
        return false;
    }

    long deadlineNanos() {
        return this.deadlineNanos;
    }

    /**
     * The owner's service was closed: the watchdog renews no more, so a watched lease ends one watchdog lease from now
     * (at {@code untilNanos}), as a lease in Redis ends within one lease of the last renewal.
     */
    void stopRenewal(long untilNanos) {
        this.renewedUntilNanos = untilNanos;
        if (!this.handles.isEmpty()) {
            this.deadlineNanos = latestDeadline();
        }
    }

    /**
     * The watchdog's endless deadline if an open acquisition uses it (its last renewal's end once the service is
     * closed), else the latest fixed one.
     */
    private long latestDeadline() {
        long latest = 0;
        boolean first = true;
        for (MemoryLockHandle handle : this.handles) {
            if (handle.watchdog && this.renewedUntilNanos == 0) {
                return Long.MAX_VALUE;
            }
            long deadline = handle.watchdog ? this.renewedUntilNanos : handle.fixedDeadlineNanos;
            if (first || deadline - latest > 0) {
                latest = deadline;
                first = false;
            }
        }
        return latest;
    }

    boolean expiredAt(long nowNanos) {
        long deadline = deadlineNanos();
        return deadline != Long.MAX_VALUE && nowNanos - deadline >= 0;
    }

    /** Whether the lease is held: not known lost and not past its deadline. */
    boolean isValid() {
        return this.lost == null && !expiredAt(System.nanoTime());
    }

    @Nullable LeaseLostException lostReason() {
        return this.lost;
    }

    void markLost(LeaseLostException reason) {
        this.lost = reason;
    }

    /**
     * Runs the lease-lost callbacks of the handles open when the loss was found and tells the listener; called out of
     * the store's monitor after {@link #markLost}.
     */
    void reportLost(List<MemoryLockHandle> open) {
        LeaseLostException reason = this.lost;
        if (open.isEmpty() || reason == null) {
            return;
        }
        open.forEach(handle -> handle.leaseLost(reason));
        this.owner.service().emit(new LockEvent.LeaseLost(open.get(0), reason));
    }

    boolean isLingering() {
        return this.owner.id() == LINGERING;
    }

    /** What the hold is now, for {@code heldLocks()}; null for a lingering hold. */
    @Nullable HeldLock snapshot(long nowNanos) {
        if (this.handles.isEmpty() || expiredAt(nowNanos)) {
            return null;
        }
        long deadline = deadlineNanos();
        Instant leaseDeadline = (deadline == Long.MAX_VALUE) ? this.handles.get(0).leaseDeadline()
                : Instant.now().plusNanos(deadline - nowNanos);
        Object id = this.owner.id();
        String ownerText = (id instanceof Thread thread) ? "thread " + thread.getName() : String.valueOf(id);
        return new HeldLock(this.handles.get(0).key(), this.handles.get(0).name(), this.mode, this.since,
                leaseDeadline, this.fencingToken, ownerText, this.handles.size(), watchdog());
    }

    /**
     * Who owns a hold for reentrancy: an owner object (by default the thread) within one service. Equal owners of
     * different services never share a hold, as their owner tokens differ in Redis.
     */
    record Owner(InMemoryLockBackend service, Object id) {
    }

    /**
     * The owner of one semaphore acquisition's permits: equal only to itself, so that no acquisition re-enters
     * another's. It reads as the caller it stands for in {@link HeldLock}, as on the Redis service.
     */
    static final class PermitHolder {

        private final String caller;

        PermitHolder(@Nullable Thread caller) {
            this.caller = (caller != null) ? "thread " + caller.getName() : "a non-blocking call";
        }

        @Override
        public String toString() {
            return this.caller;
        }
    }
}
