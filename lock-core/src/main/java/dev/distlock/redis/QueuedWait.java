package dev.distlock.redis;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.redis.wakeup.Waiter;

/**
 * One waiting call's place in its service's {@link LocalQueue}: it waits its turn behind earlier callers, competes in
 * Redis only when first (and only while the lock is not held by the service itself), and may be handed the lock by a
 * releasing holder at any point of its wait.
 */
final class QueuedWait {

    private static final Log logger = LogFactory.getLog(RedisLockService.class); // logged as the service

    /** The longest a waiter behind others sleeps without looking: bounds the cost of a missed wake-up. */
    private static final long TURN_CHECK_NANOS = 100_000_000;

    private final LocalQueue queue;

    /** Makes a turn for the call's hold; true: with a new owner token. */
    private final Function<Boolean, QueueTurn> turns;

    private QueueTurn turn;

    QueuedWait(LocalQueue queue, Function<Boolean, QueueTurn> turns) {
        this.queue = queue;
        this.turns = turns;
        this.turn = turns.apply(false);
        queue.join(this.turn);
    }

    /**
     * The lock, when it was handed to this call; waits for a hand-off under way, whatever the deadline, since its
     * outcome decides who holds the lock. A hand-off that failed with its outcome unknown costs the owner token.
     */
    @Nullable RedisLockHandle handedOff(long remainingNanos) {
        while (this.turn.claimed()) {
            LockSupport.parkNanos(this, 100_000);
        }
        RedisLockHandle handle = this.turn.handedOff();
        if (handle != null) {
            return handle;
        }
        if (this.turn.tokenSpoilt) {
            Waiter waiter = this.turn.waiter;
            this.turn.giveUp();
            this.queue.remove(this.turn);
            this.turn = this.turns.apply(true);
            this.turn.waiter = waiter;
            this.queue.join(this.turn);
        }
        return null;
    }

    /** Counts the wake-ups of this call's turn, so that one before the waiter was armed is not lost. */
    int wakes() {
        return this.turn.wakes.get();
    }

    boolean first() {
        return this.queue.isFirst(this.turn);
    }

    /**
     * Sleeps behind earlier callers until this call is first, handed the lock, or the time is up.
     *
     * @return false when the thread was interrupted (the flag is cleared)
     */
    boolean awaitTurn(long remainingNanos) {
        LockSupport.parkNanos(this, Math.min(remainingNanos, TURN_CHECK_NANOS));
        return !Thread.interrupted();
    }

    /** The call competes in Redis, waiting for releases with this waiter, which a hand-off wakes too. */
    void competing(@Nullable Waiter waiter) {
        this.turn.waiter = waiter;
    }

    /** How long to leave Redis alone: while the service holds the lock itself, or yields it to others. */
    long holdBackNanos() {
        return this.queue.holdBackNanos();
    }

    /** One attempt in Redis, unless a hand-off is under way; a granted call leaves the queue. */
    @Nullable RedisLockHandle attempt(Supplier<@Nullable RedisLockHandle> attempt) {
        if (!this.turn.startAttempt()) {
            return null;
        }
        RedisLockHandle handle = null;
        try {
            handle = attempt.get();
            return handle;
        }
        finally {
            if (handle != null) {
                this.turn.giveUp();
                this.queue.remove(this.turn);
            }
            else {
                this.turn.endAttempt();
            }
        }
    }

    boolean claimed() {
        return this.turn.claimed();
    }

    /**
     * The call is no longer first (a failed hand-off's waiter went back before it): it stops competing, passing on
     * a release message its waiter took.
     *
     * @return null, the call's waiter from now on
     */
    @Nullable Waiter stepBack(@Nullable Waiter waiter) {
        if (waiter != null) {
            waiter.finish(false);
            this.turn.waiter = null;
        }
        return null;
    }

    /**
     * Leaves the queue without the lock. A lock handed over just as the call gave up is released at once: nobody
     * will use it.
     */
    void leave() {
        RedisLockHandle late = this.turn.giveUp();
        this.queue.remove(this.turn);
        if (late != null) {
            try {
                late.release();
            }
            catch (RuntimeException ex) {
                logger.debug("Could not pass on lock '" + late.key() + "', handed over as its waiter gave up", ex);
            }
        }
    }
}
