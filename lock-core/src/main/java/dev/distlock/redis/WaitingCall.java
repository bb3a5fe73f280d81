package dev.distlock.redis;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.redis.wakeup.Waiter;

/**
 * The state machine of one waiting acquisition, the same whether its caller blocks a thread ({@link Acquisition})
 * or holds a future ({@link AsyncAcquisition}): both styles of one service queue in one {@link LocalQueue} per
 * exclusive lock and are handed the lock by its holders alike ({@link HandOffs}).
 *
 * <p>Its state is one {@link WaitState}, stored in its place in the local queue ({@link QueueTurn}), and its wait for a
 * release (a {@link Waiter} armed before each attempt). The caller asks {@link #next()} which state to act on whenever
 * the call starts waiting, is woken (a release, a hand-off, its turn) or a pause ends, runs attempts through
 * {@link #startAttempt()} and {@link #attempted}, asks {@link #refused()} after a refused one, and ends with
 * {@link #end}. How it sleeps and is woken is its {@link WaitDriver}'s: a blocking caller parks its thread, a
 * non-blocking one schedules its pause on the service's timer and is called back by every wake-up.
 */
final class WaitingCall {

    /** The longest a waiter behind others sleeps without looking: bounds the cost of a missed wake-up. */
    static final long TURN_CHECK_NANOS = 100_000_000;

    private final LockRequest request;

    private final WaitParts parts;

    private final @Nullable LocalQueue queue;

    private final WaitDeadline deadline;

    /** How the caller waits and is woken. */
    private final WaitDriver driver;

    private final WaitPause pauses = new WaitPause();

    private @Nullable QueueTurn turn;

    private @Nullable Waiter waiter;

    private @Nullable RedisLockHandle handed;

    private long pauseNanos;

    private long holdBackNanos;

    private boolean subscribed;

    /** Starts waiting: joins the queue's end, if the call waits in one. */
    WaitingCall(LockRequest request, WaitParts parts, @Nullable LocalQueue queue, long startNanos, long waitNanos,
            WaitDriver driver) {
        this.request = request;
        this.parts = parts;
        this.queue = queue;
        this.deadline = new WaitDeadline(startNanos, waitNanos);
        this.driver = driver;
        if (queue != null) {
            this.turn = newTurn(false);
            queue.join(this.turn);
        }
    }

    /**
     * Decides what the call does now.
     *
     * @throws IllegalStateException when the service was closed
     */
    WaitState next() {
        while (true) {
            if (this.parts.closed().getAsBoolean()) {
                throw new IllegalStateException("This LockService was closed while waiting for lock "
                        + KeyText.quote(this.request.key));
            }
            long remaining = this.deadline.remainingNanos();
            QueueTurn current = this.turn;
            int wakes = 0;
            if (current != null) {
                wakes = current.wakes();
                if (current.claimed()) { // its outcome decides who holds the lock, and wakes the call
                    this.pauseNanos = this.driver.claimCheckNanos();
                    return WaitState.CLAIMED;
                }
                this.handed = current.takeHandedOff();
                if (this.handed != null) {
                    return WaitState.HANDED;
                }
                if (current.tokenSpoilt()) {
                    current = rejoinWithNewToken(current);
                }
                if (this.request.ownerHoldOpen()) {
                    // the call's own owner holds the lock (granted or handed to another of its calls): it re-enters
                    // now, wherever it waits, as a caller arriving after the grant does
                    this.holdBackNanos = 0;
                    return WaitState.ATTEMPTING;
                }
                boolean first = this.queue.isFirst(current);
                if (!first && (this.queue.unreachable() || this.deadline.askAtEnd(remaining))) {
                    // Redis did not answer the last call on this key, or the wait ends behind others: the call asks
                    // Redis now, out of its turn (an answer puts it back in its turn; a failure ends it)
                    stepBack();
                    this.holdBackNanos = 0;
                    return WaitState.ATTEMPTING;
                }
                if (!first) {
                    stepBack();
                    if (remaining <= 0) {
                        return WaitState.GONE;
                    }
                    this.pauseNanos = Math.min(remaining, TURN_CHECK_NANOS);
                    return WaitState.BEHIND;
                }
            }
            Waiter listening = this.waiter;
            if (listening == null) {
                listening = startWaiting();
                if (current != null) {
                    this.driver.listening(listening); // a hand-off wakes a parked thread from its wait for a release
                }
            }
            // before the attempt: a waiter that subscribes again now misses no release after the attempt
            this.subscribed = this.driver.subscribed(listening);
            listening.arm();
            if (current != null && current.wakes() != wakes) {
                continue; // handed the lock, or given back, before the arm: that wake-up is not lost
            }
            this.holdBackNanos = (this.queue != null) ? this.queue.holdBackNanos() : 0;
            if (this.holdBackNanos > 0 && this.deadline.askAtEnd(remaining)) {
                this.holdBackNanos = 0; // the wait ends while holding back: Redis has the last word
            }
            return (this.holdBackNanos <= 0) ? WaitState.ATTEMPTING : pauseOrEnd();
        }
    }

    /** After a refused attempt: a pause until the next, or the end of the wait. */
    WaitState refused() {
        QueueTurn current = this.turn;
        if (current != null && current.claimed()) {
            return next(); // a hand-off came meanwhile
        }
        if (this.waiter == null && current != null) {
            // asked out of its turn (its owner's hold, or Redis unreachable): waits its turn again
            long remaining = this.deadline.remainingNanos();
            if (remaining <= 0 || graceOutlastsWait()) {
                return WaitState.GONE;
            }
            this.pauseNanos = Math.min(remaining, TURN_CHECK_NANOS);
            return WaitState.BEHIND;
        }
        return pauseOrEnd();
    }

    private WaitState pauseOrEnd() {
        long remaining = this.deadline.remainingNanos();
        if (remaining <= 0 || graceOutlastsWait()) {
            return WaitState.GONE;
        }
        long pause = this.pauses.next(this.request.holderRemainingMillis, this.holdBackNanos,
                this.request.type.keepsPlace() ? this.parts.placeRefreshNanos() : 0, this.subscribed);
        this.pauseNanos = Math.min(pause, remaining);
        return WaitState.WAITING;
    }

    /** Before an attempt: false when a hand-off to this call is under way (ask {@link #next()} again). */
    boolean startAttempt() {
        QueueTurn current = this.turn;
        return current == null || current.startAttempt();
    }

    /** After an attempt: a granted call leaves the queue. */
    void attempted(@Nullable RedisLockHandle handle) {
        QueueTurn current = this.turn;
        if (current == null) {
            return;
        }
        if (handle != null) {
            current.giveUpAfterClaim(); // attempting: never claimed
            this.queue.remove(current);
        }
        else {
            current.endAttempt();
        }
    }

    /** One attempt of a blocking caller, unless a hand-off is under way: null when refused or claimed. */
    @Nullable RedisLockHandle attempt(Supplier<@Nullable RedisLockHandle> attempt) {
        if (!startAttempt()) {
            return null;
        }
        RedisLockHandle handle = null;
        try {
            handle = attempt.get();
            return handle;
        }
        finally {
            attempted(handle);
        }
    }

    /** The lock handed to this call, after {@link WaitState#HANDED}. */
    @Nullable RedisLockHandle handedOff() {
        return this.handed;
    }

    long pauseNanos() {
        return this.pauseNanos;
    }

    /** The waiter a blocking caller sleeps on for {@link WaitState#WAITING}. */
    @Nullable Waiter releaseWaiter() {
        return this.waiter;
    }

    /**
     * Ends the wait: stops listening for releases and leaves the queue. A blocking caller waits for a hand-off under
     * way; a non-blocking one does not: the outcome wakes it, and it ends again then.
     *
     * @return a lock handed over just as the call gave up, which nobody will use: the caller releases it
     */
    @Nullable RedisLockHandle end(boolean acquired) {
        Waiter listening = this.waiter;
        this.waiter = null;
        if (listening != null) {
            listening.finish(acquired);
        }
        QueueTurn current = this.turn;
        if (acquired || current == null) {
            return null;
        }
        RedisLockHandle late = this.driver.giveUp(current);
        if (!current.claimed()) {
            this.queue.remove(current);
        }
        return late;
    }

    /**
     * The call is no longer first (a failed hand-off's waiter went back before it): it stops competing, passing on a
     * release message its waiter took.
     */
    private void stepBack() {
        Waiter listening = this.waiter;
        if (listening != null) {
            listening.finish(false);
            this.waiter = null;
            this.driver.listening(null);
        }
    }

    private Waiter startWaiting() {
        LockRequest call = this.request;
        String channel = call.type.releaseChannel(call.key);
        String name = call.freshHold().ownerToken();
        Waiter started = this.driver.startWaiting(this.parts.subscriptions(), channel, call.type.wakeUp(), name);
        this.waiter = started;
        return started;
    }

    /** A hand-off failed with its outcome unknown: the call waits on with a new owner token, at the queue's end. */
    private QueueTurn rejoinWithNewToken(QueueTurn spoilt) {
        spoilt.giveUpNow();
        this.queue.remove(spoilt);
        QueueTurn fresh = newTurn(true);
        this.turn = fresh;
        this.queue.join(fresh);
        return fresh;
    }

    private QueueTurn newTurn(boolean newToken) {
        LockRequest call = this.request;
        if (newToken) {
            call.newOwnerToken();
        }
        return new QueueTurn(call.freshHold(), call.name, call.leaseNanos, call.watchdog, this.driver);
    }

    /**
     * Whether the restart grace that refused the last attempt ends after this wait: the call ends now, refused by
     * the grace, rather than hold its caller for the whole wait to the same end.
     */
    private boolean graceOutlastsWait() {
        LockRequest call = this.request;
        return call.graceLeftMillis >= 0 && this.deadline.endsBefore(call.graceEndsNanos);
    }
}
