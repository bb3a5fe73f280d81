package dev.distlock.redis.quorum;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.HeldLock;
import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.internal.AbstractLockHandle;
import dev.distlock.redis.lease.Hold.HoldKey;

/**
 * One owner's hold on one quorum lock: the fencing token its outer acquisition was given, which reentrant
 * acquisitions share, and its open handles. The outer acquisition's member locks decide when the quorum is lost, for
 * every handle at once (a reentrant acquisition re-enters the same member locks). Ends when the last handle is
 * released or the quorum is lost; a later acquisition by the owner then starts a new hold with a new token.
 */
final class QuorumHold {

    final HoldKey holdKey;

    final long fencingToken;

    /** The outer acquisition's member locks. */
    final List<QuorumMember> members;

    private final int quorum;

    /** When the quorum granted the lock, on this machine's clock. */
    private final Instant since = Instant.now();

    /** Whether the masters' watchdogs renew the member leases. */
    final boolean watchdog;

    private final Set<LockHandle> lostMembers = new HashSet<>(); // guarded by this

    private final Set<AbstractLockHandle> openHandles = new LinkedHashSet<>(); // guarded by this

    private boolean over; // guarded by this

    private @Nullable LeaseLostException lost; // guarded by this

    QuorumHold(HoldKey holdKey, long fencingToken, List<QuorumMember> members, int quorum, boolean watchdog) {
        this.watchdog = watchdog;
        this.holdKey = holdKey;
        this.fencingToken = fencingToken;
        this.members = List.copyOf(members);
        this.quorum = quorum;
    }

    /**
     * Adds a handle, unless the hold has ended.
     *
     * @return whether the handle joined this hold
     */
    synchronized boolean join(AbstractLockHandle handle) {
        if (this.over) {
            return false;
        }
        this.openHandles.add(handle);
        return true;
    }

    /**
     * Removes a released handle.
     *
     * @return whether that ended the hold
     */
    synchronized boolean leave(AbstractLockHandle handle) {
        this.openHandles.remove(handle);
        if (this.openHandles.isEmpty()) {
            this.over = true;
        }
        return this.over;
    }

    synchronized boolean isOver() {
        return this.over;
    }

    /** Why the quorum was lost, or null while it stands. */
    synchronized @Nullable LeaseLostException lostReason() {
        return this.lost;
    }

    /** What the hold is now, for {@link QuorumLockService#heldLocks()}; null when it is over or not held. */
    @Nullable HeldLock snapshot() {
        List<AbstractLockHandle> open = openHandles();
        if (open.isEmpty() || isOver() || !open.get(0).isHeld()) {
            return null;
        }
        AbstractLockHandle first = open.get(0);
        Object owner = this.holdKey.owner();
        String ownerText = (owner instanceof Thread thread) ? "thread " + thread.getName() : String.valueOf(owner);
        return new HeldLock(this.holdKey.key(), first.name(), LockMode.EXCLUSIVE, this.since, first.leaseDeadline(),
                this.fencingToken, ownerText, open.size(), this.watchdog);
    }

    /** The handles open now, in the order they joined. */
    synchronized List<AbstractLockHandle> openHandles() {
        return new ArrayList<>(this.openHandles);
    }

    /**
     * Counts a member lock lost; when fewer than a quorum are left, the hold is lost and ends.
     *
     * @return the loss when this call lost the quorum, else null
     */
    synchronized @Nullable LeaseLostException memberLost(QuorumMember member, LeaseLostException memberReason) {
        this.lostMembers.add(member.handle());
        int left = this.members.size() - this.lostMembers.size();
        if (left >= this.quorum || this.lost != null) {
            return null;
        }
        String key = this.holdKey.key();
        LeaseLostException quorumLost = new LeaseLostException(key, "Lock " + KeyText.quote(key)
                + " lost its quorum: " + left
                + " of its " + this.members.size() + " member locks are left, " + this.quorum + " needed; the last "
                + "was lost on " + member.node() + ": " + memberReason.getMessage(), memberReason);
        this.lost = quorumLost;
        this.over = true;
        return quorumLost;
    }
}
