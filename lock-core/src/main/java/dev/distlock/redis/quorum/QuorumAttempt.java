package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockLayoutException;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.lease.Hold.HoldKey;
import dev.distlock.redis.quorum.Fanout.Answer;

/** One call's attempts at one lock, each asking every master. */
final class QuorumAttempt {

    static final long RETRY_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static final long RETRY_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final QuorumParts service;

    private final String key;

    private final String name;

    /** The caller's options with the owner named, since the masters are asked from pool threads. */
    private final LockOptions memberOptions;

    private final Duration drift;

    private final HoldKey holdKey;

    /** An attempt whose owner is the options' owner, or else {@code defaultOwner}. */
    QuorumAttempt(QuorumParts service, String key, LockOptions options, String name, Duration watchdogLease,
            Object defaultOwner) {
        this.service = service;
        this.key = key;
        this.name = name;
        Object owner = (options.owner() != null) ? options.owner() : defaultOwner;
        Duration lease = (options.leaseTime() != null) ? options.leaseTime() : watchdogLease;
        this.memberOptions = options.withOwner(owner);
        this.drift = lease.dividedBy(100).plusMillis(2);
        this.holdKey = new HoldKey(owner, key, LockMode.EXCLUSIVE);
    }

    /**
     * Attempts until a quorum grants the lock or the wait ends. Too few masters answering is retried too, as they may
     * come back (or have been slow to connect); if the last attempt failed so, that is thrown.
     */
    @Nullable QuorumHandle run(long startNanos, long waitNanos) {
        try {
            while (true) {
                QuorumHandle handle = null;
                LockUnavailableException unavailable = null;
                try {
                    handle = once();
                }
                catch (LockUnavailableException ex) {
                    unavailable = ex;
                }
                long remaining = waitNanos - (System.nanoTime() - startNanos);
                if (unavailable != null && remaining <= 0) {
                    throw unavailable;
                }
                if (handle != null || remaining <= 0) {
                    return handle;
                }
                long delay = ThreadLocalRandom.current().nextLong(RETRY_MIN_NANOS, RETRY_MAX_NANOS + 1);
                TimeUnit.NANOSECONDS.sleep(Math.min(delay, remaining));
                if (this.service.closed) {
                    throw new IllegalStateException(
                            "This LockService was closed while waiting for lock " + KeyText.quote(this.key));
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(this.key, ex);
        }
    }

    /**
     * Asks every master for the lock at once.
     *
     * @return the handle, or null when no quorum granted it in time
     * @throws LockUnavailableException when fewer than a quorum of masters answered
     */
    @Nullable QuorumHandle once() throws InterruptedException {
        if (this.service.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
        long start = System.nanoTime();
        Fanout<Optional<LockHandle>> grants = this.service.masters
            .callEach(node -> node.locks.tryAcquire(this.key, this.memberOptions));
        List<Answer<Optional<LockHandle>>> answers;
        try {
            answers = grants.await(this.service.masters.nodeTimeoutNanos())
                .collect(QuorumMasters::releaseLate);
        }
        catch (InterruptedException ex) {
            grants.giveUp(QuorumMasters::releaseLate);
            throw ex;
        }
        List<QuorumMember> granted = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < answers.size(); i++) {
            Optional<LockHandle> grant = answers.get(i).value();
            if (grant != null && grant.isPresent()) {
                granted.add(new QuorumMember(this.service.masters.nodes.get(i), grant.get()));
            }
            else if (grant != null) {
                refused++;
            }
        }
        for (Answer<Optional<LockHandle>> answer : answers) {
            if (answer.failure() instanceof LockLayoutException otherLayout) {
                // not a master that failed to answer: one that holds data of another layout, so no grant
                this.service.masters.releaseAll(granted);
                throw otherLayout;
            }
        }
        int quorum = this.service.masters.quorum;
        if (granted.size() >= quorum) {
            QuorumHandle handle;
            try {
                handle = complete(granted, start);
            }
            catch (InterruptedException | RuntimeException ex) {
                this.service.masters.releaseAll(granted);
                throw ex;
            }
            if (handle != null) {
                return handle;
            }
        }
        else {
            this.service.masters.releaseAll(granted);
        }
        if (granted.size() + refused < quorum) {
            this.service.masters.requireQuorum(this.key, "Lock " + KeyText.quote(this.key) + " cannot get a quorum",
                    answers);
        }
        return null;
    }

    /**
     * Turns a quorum of grants into a handle: gives it a fencing token (its outer acquisition's, when the owner
     * re-enters) and checks that its lease, less the time spent and the drift allowance, is still running.
     *
     * @return the handle, or null (with every member released) when that failed
     */
    private @Nullable QuorumHandle complete(List<QuorumMember> granted, long start) throws InterruptedException {
        QuorumHold outer = this.service.holds.get(this.holdKey);
        QuorumHandle handle = (outer != null) ? reenter(outer, granted, start) : null;
        boolean reentrant = (handle != null);
        if (!reentrant) {
            List<QuorumMember> members = new ArrayList<>(granted);
            long token = this.service.fence.raise(this.key, members);
            if (token < 0) {
                this.service.masters.releaseAll(granted);
                return null;
            }
            QuorumHold hold = new QuorumHold(this.holdKey, token, members, this.service.masters.quorum,
                    this.memberOptions.leaseTime() == null);
            handle = handleIn(hold, members, start);
            hold.join(handle); // a new hold takes its first handle
        }
        if (!handle.isHeld()) { // the lease, less the time spent and the drift allowance, has run out
            this.service.leave(handle);
            this.service.masters.releaseAll(granted);
            return null;
        }
        if (!reentrant) {
            this.service.holds.merge(this.holdKey, handle.hold,
                    (old, mine) -> old.isOver() ? mine : old);
            this.service.watch(handle.hold);
        }
        return handle;
    }

    /** A re-entry's handle in the owner's hold, or null when the hold has ended. */
    private @Nullable QuorumHandle reenter(QuorumHold hold, List<QuorumMember> members, long start) {
        QuorumHandle handle = handleIn(hold, members, start);
        return hold.join(handle) ? handle : null;
    }

    private QuorumHandle handleIn(QuorumHold hold, List<QuorumMember> members, long start) {
        return new QuorumHandle(this.service::release, this.service.async, this.key, this.name, members, hold,
                this.service.masters.quorum, this.drift, start);
    }
}
