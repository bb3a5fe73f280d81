package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockUnavailableException;
import dev.distlock.internal.AbstractLockHandle;
import dev.distlock.internal.Durations;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.lease.Hold.HoldKey;
import dev.distlock.redis.quorum.Fanout.Answer;

/**
 * The parts of one {@link QuorumLockService}: its masters, the fence that numbers grants, the owners' holds, and the
 * release and loss of quorum handles.
 */
final class QuorumParts {

    /** The service's log. */
    private final Log logger;

    final QuorumMasters masters;

    final QuorumFence fence;

    final LockEventListener listener;

    final ConcurrentHashMap<HoldKey, QuorumHold> holds = new ConcurrentHashMap<>();

    /** The threads of non-blocking calls. */
    final QuorumAsync async = new QuorumAsync();

    volatile boolean closed;

    QuorumParts(QuorumMasters masters, LockEventListener listener, Log logger) {
        this.logger = logger;
        this.masters = masters;
        this.fence = new QuorumFence(masters);
        this.listener = listener;
    }

    /** Releases every member of the handle at once; succeeds when a quorum of them was still held. */
    void release(QuorumHandle handle, Duration keepHeld) {
        List<Answer<@Nullable Void>> answers = this.masters.<@Nullable Void>callMembers(handle.members, member -> {
            if (keepHeld.isZero()) {
                member.handle().release();
            }
            else {
                member.handle().releaseAfter(keepHeld);
            }
            return null;
        }).awaitUninterruptibly(Long.MAX_VALUE).collect(ignored -> {
        });
        leave(handle);
        int released = 0;
        int unreachable = 0;
        List<RuntimeException> failures = new ArrayList<>();
        for (Answer<@Nullable Void> answer : answers) {
            RuntimeException failure = answer.failure();
            if (failure == null) {
                released++;
            }
            else {
                failures.add(failure);
                if (!(failure instanceof LeaseLostException)) {
                    unreachable++;
                }
            }
        }
        int quorum = this.masters.quorum;
        if (released >= quorum) {
            Listeners.emit(this.listener,
                    new LockEvent.Released(handle, Durations.since(handle.acquiredNanos)));
            return;
        }
        String counts = "released on " + released + " of its " + handle.members.size() + " masters, " + quorum
                + " needed";
        LockException failure = (released + unreachable >= quorum && !handle.isLost())
                ? new LockUnavailableException(handle.key(), "Could not release lock " + KeyText.quote(handle.key())
                        + " on "
                        + "enough Redis masters (" + counts + "); the rest expires at the end of its lease",
                        failures.get(0))
                : new LeaseLostException(handle.key(), "Lock " + KeyText.quote(handle.key())
                        + " was no longer held by a quorum "
                        + "of Redis masters at release (" + counts + "): its lease was lost", failures.get(0));
        failures.subList(1, failures.size()).forEach(failure::addSuppressed);
        if (failure instanceof LockUnavailableException) {
            logger.warn(failure.getMessage());
        }
        Listeners.emit(this.listener, new LockEvent.ReleaseFailed(handle, failure));
        throw failure;
    }

    void leave(QuorumHandle handle) {
        if (handle.hold.leave(handle)) {
            this.holds.remove(handle.hold.holdKey, handle.hold);
        }
    }

    /** Follows the hold's member locks: once fewer than a quorum are left, reports the hold lost. */
    void watch(QuorumHold hold) {
        for (QuorumMember member : hold.members) {
            member.handle().onLeaseLost(reason -> {
                LeaseLostException quorumLost = hold.memberLost(member, reason);
                if (quorumLost != null) {
                    quorumLost(hold, quorumLost);
                }
            });
        }
    }

    /** Reports a lost quorum once: logs it, tells the listener, then every open handle's callbacks. */
    private void quorumLost(QuorumHold hold, LeaseLostException reason) {
        this.holds.remove(hold.holdKey, hold);
        logger.warn(reason.getMessage());
        List<AbstractLockHandle> handles = hold.openHandles();
        if (!handles.isEmpty()) {
            Listeners.emit(this.listener, new LockEvent.LeaseLost(handles.get(0), reason));
        }
        handles.forEach(handle -> handle.leaseLost(reason));
    }
}
