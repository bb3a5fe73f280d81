package dev.distlock.redis.quorum;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.internal.AbstractLockHandle;
import dev.distlock.redis.RedisLockService;

/**
 * One acquisition of a {@link QuorumLockService} lock: the member locks granted by a quorum (or more) of the masters.
 * Held while a quorum of them is held, until the quorum's lease deadline less the clock drift allowance.
 */
final class QuorumHandle extends AbstractLockHandle {

    final List<QuorumMember> members;

    /** The owner's hold, shared with reentrant acquisitions: the fencing token and the quorum's loss. */
    final QuorumHold hold;

    final long acquiredNanos;

    private final BiConsumer<QuorumHandle, Duration> releaser;

    private final QuorumAsync asyncReleases;

    private final String key;

    private final String name;

    private final int quorum;

    private final Duration drift;

    QuorumHandle(BiConsumer<QuorumHandle, Duration> releaser, QuorumAsync asyncReleases, String key, String name,
            List<QuorumMember> members, QuorumHold hold, int quorum, Duration drift, long acquiredNanos) {
        this.releaser = releaser;
        this.asyncReleases = asyncReleases;
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
        for (QuorumMember member : this.members) {
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
        return !isReleased() && this.hold.lostReason() == null && Instant.now().isBefore(leaseDeadline())
                && heldMembers() >= this.quorum;
    }

    int heldMembers() {
        int held = 0;
        for (QuorumMember member : this.members) {
            if (member.handle().isHeld()) {
                held++;
            }
        }
        return held;
    }

    @Override
    protected @Nullable LeaseLostException lostReason() {
        return this.hold.lostReason();
    }

    boolean isLost() {
        return this.hold.lostReason() != null;
    }

    @Override
    protected void releaseNow(Duration keepHeld) {
        this.releaser.accept(this, keepHeld);
    }

    /** Releases on the service's release threads: the members' releases wait for their masters. */
    @Override
    protected CompletableFuture<Void> releaseNowAsync() {
        return this.asyncReleases.release(() -> releaseNow(Duration.ZERO));
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + this.key + ", fencingToken=" + fencingToken() + ", masters="
                + this.members.size() + ", held=" + isHeld() + "]";
    }
}
