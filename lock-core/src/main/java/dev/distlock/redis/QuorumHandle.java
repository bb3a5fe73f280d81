package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;


import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;

/**
 * One acquisition of a {@link QuorumLockService} lock: the member locks granted by a quorum (or more) of the masters.
 * Held while a quorum of them is held, until the quorum's lease deadline less the clock drift allowance.
 */
final class QuorumHandle implements LockHandle {


    final List<Member> members;

    /** The owner's hold, shared with reentrant acquisitions: the fencing token and the quorum's loss. */
    final QuorumHold hold;

    final long acquiredNanos;

    private final QuorumLockService service;

    private final String key;

    private final String name;

    private final int quorum;

    private final Duration drift;

    private final AtomicBoolean released = new AtomicBoolean();

    private final LostCallbacks lostCallbacks = new LostCallbacks();

    QuorumHandle(QuorumLockService service, String key, String name, List<Member> members, QuorumHold hold,
            int quorum, Duration drift, long acquiredNanos) {
        this.service = service;
        this.key = key;
        this.name = name;
        this.members = List.copyOf(members);
        this.hold = hold;
        this.quorum = quorum;
        this.drift = drift;
        this.acquiredNanos = acquiredNanos;
    }

    @Override
    public String key() {
        return this.key;
    }

    @Override
    public String name() {
        return this.name;
    }

    /** The owner token on the first master that granted the lock (each master has its own). */
    @Override
    public String ownerToken() {
        return this.members.get(0).handle().ownerToken();
    }

    @Override
    public long fencingToken() {
        return this.hold.fencingToken;
    }

    /**
     * When fewer than a quorum of the member leases would be left, less the clock drift allowance: the latest
     * deadline that a quorum of held members reaches. It moves forward as the members are renewed.
     */
    @Override
    public Instant leaseDeadline() {
        List<Instant> deadlines = new ArrayList<>(this.members.size());
        for (Member member : this.members) {
            if (member.handle().isHeld()) {
                deadlines.add(member.handle().leaseDeadline());
            }
        }
        if (deadlines.size() < this.quorum) { // lost: report the deadline the members had
            deadlines.clear();
            this.members.forEach(member -> deadlines.add(member.handle().leaseDeadline()));
        }
        deadlines.sort(Comparator.reverseOrder());
        return deadlines.get(this.quorum - 1).minus(this.drift);
    }

    @Override
    public boolean isHeld() {
        return !this.released.get() && this.hold.lostReason() == null && Instant.now().isBefore(leaseDeadline())
                && heldMembers() >= this.quorum;
    }

    int heldMembers() {
        int held = 0;
        for (Member member : this.members) {
            if (member.handle().isHeld()) {
                held++;
            }
        }
        return held;
    }

    @Override
    public void onLeaseLost(Consumer<LeaseLostException> callback) {
        if (callback == null) {
            throw new IllegalArgumentException("callback must not be null");
        }
        this.lostCallbacks.add(callback, this.hold::lostReason);
    }

    /** The quorum was lost: calls each lease-lost callback once. */
    void lost(LeaseLostException reason) {
        this.lostCallbacks.fire(reason);
    }

    boolean isLost() {
        return this.hold.lostReason() != null;
    }


    @Override
    public void release() {
        if (this.released.compareAndSet(false, true)) {
            this.service.release(this, Duration.ZERO);
        }
    }

    @Override
    public void releaseAfter(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be null or negative, but was " + delay);
        }
        if (delay.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException(
                    "delay must be at most " + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + delay);
        }
        if (this.released.compareAndSet(false, true)) {
            this.service.release(this, delay);
        }
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + this.key + ", fencingToken=" + fencingToken() + ", masters="
                + this.members.size() + ", held=" + isHeld() + "]";
    }

    /** A member lock: the handle one master's {@link RedisLockService} gave. */
    record Member(QuorumNode node, LockHandle handle) {
    }
}
