package dev.distlock.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.lease.Hold;

/**
 * The waiters of one service for one exclusive lock, in arrival order, and the service's own holder of it. Only the
 * first waiter competes in Redis, and only while no holder of this service has the lock: a local holder hands the lock
 * on at release ({@link HandOffs}). A run of hand-offs is bounded: at its end, when waiters elsewhere were refused,
 * the lock is freed for them and the local waiters hold back for {@link #YIELD_NANOS}.
 */
final class LocalQueue {

    /** How long local waiters leave a lock to others after a run of hand-offs ended because others wait. */
    static final long YIELD_NANOS = 5_000_000;

    /** How long the first waiter holds back while a hand-off to another is under way (it is woken if that fails). */
    private static final long HAND_OFF_WAIT_NANOS = 1_000_000_000;

    final String key;

    private final ArrayDeque<QueueTurn> turns = new ArrayDeque<>(); // guarded by this

    /** The service's holder of the lock, as last granted; null when none. */
    private @Nullable Hold holder; // guarded by this

    private int users; // guarded by this

    private boolean closed; // guarded by this

    private int runLength; // guarded by this

    private long runStartNanos; // guarded by this

    private long yieldUntilNanos; // guarded by this

    /** Hand-offs claimed and not yet decided: the lock stays with this service meanwhile. */
    private int handOffsUnderWay; // guarded by this

    /**
     * Redis did not answer the last lock call on this key (a grant or a release): until it answers one, what the queue
     * believes (a holder whose release failed, an order of waiters) may be stale, so nobody waits behind it. Every
     * caller asks Redis, and hears that it is unreachable rather than, after its wait, that the lock is held.
     */
    private volatile boolean unreachable;

    LocalQueue(String key) {
        this.key = key;
    }

    synchronized boolean enter() {
        if (this.closed) {
            return false;
        }
        this.users++;
        return true;
    }

    /** @return whether the queue closed: nobody uses it and nobody of the service holds the lock */
    synchronized boolean exit() {
        this.users--;
        return closeIfUnused();
    }

    private boolean closeIfUnused() {
        if (this.users == 0 && this.holder == null) {
            this.closed = true;
        }
        return this.closed;
    }

    /**
     * Whether a newcomer should queue without asking Redis: others wait, a local holder has it, or we yield; never
     * while Redis is {@link #unreachable()}.
     */
    synchronized boolean busy() {
        return !this.unreachable
                && (!this.turns.isEmpty() || this.handOffsUnderWay > 0 || locallyHeld() || yielding());
    }

    /** Whether the first waiter should leave Redis alone now, since the lock is this service's or others' turn. */
    synchronized long holdBackNanos() {
        if (this.unreachable) {
            return 0;
        }
        if (yielding()) {
            return this.yieldUntilNanos - System.nanoTime();
        }
        if (this.handOffsUnderWay > 0) {
            return HAND_OFF_WAIT_NANOS; // woken if it fails
        }
        if (locallyHeld()) {
            Hold current = this.holder;
            return Math.max(1, current.deadlineNanos() - System.nanoTime());
        }
        return 0;
    }

    private boolean locallyHeld() {
        Hold current = this.holder;
        return current != null && current.isValid() && !current.isOver();
    }

    private boolean yielding() {
        return this.yieldUntilNanos != 0 && this.yieldUntilNanos - System.nanoTime() > 0;
    }

    /** Whether Redis did not answer the last lock call on this key: every waiter asks Redis, whatever its turn. */
    boolean unreachable() {
        return this.unreachable;
    }

    /** A lock call on this key got no answer from Redis: every waiter is woken to ask Redis itself. */
    void markUnreachable() {
        List<QueueTurn> waiting;
        synchronized (this) {
            if (this.unreachable) {
                return;
            }
            this.unreachable = true;
            waiting = new ArrayList<>(this.turns);
        }
        waiting.forEach(QueueTurn::wake);
    }

    /** Redis answered a lock call on this key: the queue's order holds again. */
    void answered() {
        if (this.unreachable) {
            this.unreachable = false;
        }
    }

    synchronized void join(QueueTurn turn) {
        this.turns.addLast(turn);
    }

    synchronized boolean isFirst(QueueTurn turn) {
        return this.turns.peekFirst() == turn;
    }

    /** Takes a turn out of the queue; the next one, if it became first, is woken to compete in Redis. */
    void remove(QueueTurn turn) {
        QueueTurn next = null;
        synchronized (this) {
            boolean first = this.turns.peekFirst() == turn;
            this.turns.remove(turn);
            if (first) {
                next = this.turns.peekFirst();
            }
        }
        if (next != null) {
            next.wake();
        }
    }

    /** A new grant of this service: waiting calls of the same owner are woken to re-enter it. */
    void held(Hold hold) {
        synchronized (this) {
            this.holder = hold;
        }
        wakeOwnersCalls(hold);
    }

    /** Wakes the waiting calls of {@code hold}'s owner, which re-enter its hold rather than wait their turn. */
    private void wakeOwnersCalls(Hold hold) {
        Object owner = hold.holdKey().owner();
        List<QueueTurn> owners = null;
        synchronized (this) {
            for (QueueTurn turn : this.turns) {
                if (turn.hold.holdKey().owner().equals(owner)) {
                    owners = (owners == null) ? new ArrayList<>(2) : owners;
                    owners.add(turn);
                }
            }
        }
        if (owners != null) {
            owners.forEach(QueueTurn::wake);
        }
    }

    /**
     * The holder's last hold ended without a hand-off: the run ends, and the first waiter competes in Redis.
     *
     * @return whether the queue closed
     */
    boolean released(Hold hold) {
        QueueTurn first;
        boolean closed;
        synchronized (this) {
            if (this.holder == hold) {
                this.holder = null;
                this.runLength = 0;
            }
            first = this.turns.peekFirst();
            closed = closeIfUnused();
        }
        if (first != null) {
            first.wake();
        }
        return closed;
    }

    /**
     * Claims the first waiter that can take the lock from {@code releasing} (not the same owner, not in the middle
     * of its own Redis attempt), taking it out of the queue.
     */
    @Nullable QueueTurn claim(Hold releasing) {
        QueueTurn claimed = null;
        QueueTurn next = null;
        synchronized (this) {
            QueueTurn first = this.turns.peekFirst();
            for (Iterator<QueueTurn> it = this.turns.iterator(); it.hasNext();) {
                QueueTurn turn = it.next();
                if (!turn.hold.holdKey().owner().equals(releasing.holdKey().owner()) && turn.claim()) {
                    it.remove();
                    claimed = turn;
                    this.handOffsUnderWay++;
                    break;
                }
            }
            if (claimed != null && claimed == first) {
                next = this.turns.peekFirst();
            }
        }
        if (next != null) {
            next.wake();
        }
        return claimed;
    }

    /** A hand-off to {@code turn} did not happen: it goes back to the front, to wait on. */
    void giveBack(QueueTurn turn, boolean tokenSpoilt) {
        synchronized (this) {
            this.turns.addFirst(turn);
            this.handOffsUnderWay--;
        }
        turn.notHanded(tokenSpoilt);
    }

    /** Whether the run of hand-offs reached its bound, so that the next goes only if nobody else waits. */
    synchronized boolean runAtBound(int maxRun, long maxRunNanos) {
        return this.runLength >= maxRun
                || (this.runLength > 0 && System.nanoTime() - this.runStartNanos >= maxRunNanos);
    }

    /**
     * The lock went to {@code next}; {@code othersWait}: false restarts the run (nobody else to starve). Waiting calls
     * of the same owner are woken to re-enter it.
     */
    void handedOff(Hold next, boolean restartRun) {
        synchronized (this) {
            this.handOffsUnderWay--;
            this.holder = next;
            if (this.runLength == 0 || restartRun) {
                this.runLength = 0;
                this.runStartNanos = System.nanoTime();
            }
            this.runLength++;
        }
        wakeOwnersCalls(next);
    }

    /** A run ended because others wait: the lock is freed for them and local waiters hold back a moment. */
    void yieldToOthers(Hold releasing) {
        synchronized (this) {
            this.yieldUntilNanos = System.nanoTime() + YIELD_NANOS;
        }
        released(releasing);
    }
}
