package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.script.LockType.WakeUp;
import dev.distlock.redis.wakeup.Waiter;

/**
 * One non-blocking call's attempts at one lock, as {@link Acquisition} makes them but with no thread waiting: each
 * attempt is a script sent without blocking, and a refused call waiting for the lock is woken by a callback (the
 * release message, a local release) or by the service's timer when the holder's lease would end. At most one attempt
 * is in flight; a wake-up during an attempt makes the next one start as soon as it is refused.
 *
 * <p>Without an explicit owner every call is its own owner. A waiting call for an exclusive lock that other callers of
 * this service already wait for does not ask Redis at once: it queues behind them and is woken in turn, since its
 * request would reach Redis ahead of the one a release wakes and overtake them again and again. It does not take part
 * in the blocking callers' hand-offs ({@link LocalQueue}). Completing or cancelling the future from outside
 * withdraws the call: it stops waiting, gives up any place kept in Redis, and releases a grant that lands afterwards.
 * {@link LockEngine#close()} completes every call still pending.
 */
final class AsyncAcquisition extends LockRequest {

    private final CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();

    private final WaitPause pauses = new WaitPause();

    private long startNanos;

    private long waitNanos;

    private @Nullable Waiter waiter; // guarded by this

    /** Whether an attempt is in flight. */
    private boolean attempting; // guarded by this

    /** Whether a wake-up came while an attempt was in flight. */
    private boolean wokenDuringAttempt; // guarded by this

    private @Nullable ScheduledFuture<?> pause; // guarded by this

    private boolean over; // guarded by this

    AsyncAcquisition(LockEngine engine, String key, LockOptions options, String name, boolean waiting) {
        super(engine, key, options, name, waiting, (options.owner() != null) ? options.owner() : new Object());
    }

    /**
     * Starts the first attempt, or, when other callers of this service already wait for the exclusive lock, queues
     * behind them to be woken in turn; the future completes with the handle, or null when the lock stayed held.
     */
    CompletableFuture<@Nullable LockHandle> start(long startNanos, long waitNanos) {
        this.startNanos = startNanos;
        this.waitNanos = waitNanos;
        this.result.whenComplete((handle, failure) -> end(handle != null));
        this.engine.pendingAsync.add(this);
        if (this.engine.isClosed()) { // closed since the call was checked: close() may have missed this one
            serviceClosed();
            return this.result;
        }
        boolean queued;
        synchronized (this) {
            queued = queuesBehindOthers() && !ownerHoldOpen();
            this.attempting = !queued;
        }
        if (queued) {
            waitInTurn();
        }
        else {
            attempt();
        }
        return this.result;
    }

    /** Whether this call, if refused, should wait for its turn rather than ask Redis again at once. */
    private boolean queuesBehindOthers() {
        return this.waiting && this.type.wakeUp() == WakeUp.ONE
                && this.engine.subscriptions.othersQueued(this.type.releaseChannel(this.key));
    }

    /**
     * Joins the queue of this service's waiters for the lock, to be woken when a release reaches it; the pause is
     * only a fallback for a wake-up that never comes.
     */
    private void waitInTurn() {
        synchronized (this) {
            if (this.over) {
                return;
            }
            Waiter joined = startWaiting();
            joined.arm();
            if (schedulePause(this.waitNanos - (System.nanoTime() - this.startNanos))) {
                return;
            }
            this.attempting = true;
        }
        attempt(); // the service's timer is closed: the attempt finds the service closed
    }

    private Waiter startWaiting() {
        Waiter started = this.waiter;
        if (started == null) {
            started = this.engine.subscriptions.startWaiting(this.type.releaseChannel(this.key), this.type.wakeUp(),
                    freshHold().ownerToken(), this::wakeUp, this.engine.subscriber());
            this.waiter = started;
        }
        return started;
    }

    /** Starts an attempt unless one is in flight (then it starts again as soon as that one is refused). */
    private void wakeUp() {
        synchronized (this) {
            if (this.over) {
                return;
            }
            if (this.attempting) {
                this.wokenDuringAttempt = true;
                return;
            }
            this.attempting = true;
            if (this.pause != null) {
                this.pause.cancel(false);
                this.pause = null;
            }
        }
        attempt();
    }

    /** One try, begun with {@link #attempting} set: re-enters the owner's hold if it is open, else takes a new one. */
    private void attempt() {
        Waiter armed;
        synchronized (this) {
            if (this.over) {
                return;
            }
            this.wokenDuringAttempt = false;
            armed = this.waiter;
        }
        if (armed != null) {
            armed.arm(); // before the attempt, so that a release after it is not missed
        }
        if (this.engine.isClosed()) {
            serviceClosed();
            return;
        }
        Hold current = reentryTarget();
        send((current != null) ? current : freshHold(), current != null);
    }

    private void send(Hold hold, boolean reentrant) {
        Grant grant = startGrant(hold, reentrant);
        grant.call().runAsync().whenComplete((reply, failure) -> {
            try { // whatever fails here completes the call: nothing is lost in a future's callback
                if (failure != null) {
                    throw (failure instanceof DataAccessException ex) ? grant.failed(ex) : failure;
                }
                RedisLockHandle handle = grant.replied(reply);
                if (handle != null) {
                    settle(handle, null);
                }
                else if (reentrant) {
                    reentryRefused(hold);
                    send(freshHold(), false);
                }
                else if (isOver()) {
                    leaveAgain(); // withdrawn while this attempt ran: it may have taken a place in Redis again
                }
                else {
                    refused();
                }
            }
            catch (Throwable ex) {
                settle(null, ex);
            }
        });
    }

    private synchronized boolean isOver() {
        return this.over;
    }

    /**
     * Gives up a place an attempt kept in Redis after the call ended: the clean-up of {@link #end} may have run
     * before the attempt reached Redis and added the place again.
     */
    private void leaveAgain() {
        if (this.waiting && this.type.keepsPlace()) {
            this.engine.cleanUp(this::leave);
        }
    }

    /** The service was closed: the call completes at once, as waiting threads stop. */
    void serviceClosed() {
        settle(null, new IllegalStateException("This LockService was closed while waiting for lock "
                + KeyText.quote(this.key)));
    }

    /** The attempt was refused: give up at the end of the wait, else try again now or after a pause. */
    private void refused() {
        long remaining = this.waitNanos - (System.nanoTime() - this.startNanos);
        if (!this.waiting || remaining <= 0) {
            settle(null, graceRefusal());
            return;
        }
        boolean again;
        synchronized (this) {
            if (this.over) {
                return;
            }
            again = this.wokenDuringAttempt;
            if (this.waiter == null) {
                // the first refusal: listen for the release, then try once more, as a blocking call does, unless
                // others of this service wait already: then wait in turn behind them
                boolean behindOthers = queuesBehindOthers();
                Waiter joined = startWaiting();
                if (behindOthers) {
                    joined.arm();
                }
                again = !behindOthers;
            }
            if (!again) {
                this.attempting = false;
                again = !schedulePause(remaining);
                this.attempting = again;
            }
        }
        if (again) {
            attempt();
        }
    }

    /**
     * Sleeps until woken, or until the next pause ends (the holder's lease, a place to refresh, a poll).
     *
     * @return false when the service's timer is closed, so that the next attempt finds the service closed
     */
    private boolean schedulePause(long remaining) { // guarded by this
        Waiter current = this.waiter;
        long pauseNanos = this.pauses.next(this.holderRemainingMillis, 0,
                this.type.keepsPlace() ? this.engine.placeRefreshNanos : 0, current != null && current.isSubscribed());
        try {
            this.pause = this.engine.asyncTimer().schedule(this::wakeUp, Math.max(0, Math.min(pauseNanos, remaining)),
                    TimeUnit.NANOSECONDS);
            return true;
        }
        catch (RejectedExecutionException ex) { // closed meanwhile
            return false;
        }
    }

    /** Completes the call; a handle nobody can receive any more (the call was cancelled) is released. */
    private void settle(@Nullable RedisLockHandle handle, @Nullable Throwable failure) {
        if (failure != null) {
            this.result.completeExceptionally(failure);
        }
        else if (!this.result.complete(handle) && handle != null) {
            handle.releaseAsync();
        }
    }

    /** The call is over, completed by this class or from outside: stop waiting and give up any place kept. */
    private void end(boolean acquired) {
        Waiter ended;
        this.engine.pendingAsync.remove(this);
        synchronized (this) {
            this.over = true;
            if (this.pause != null) {
                this.pause.cancel(false);
                this.pause = null;
            }
            ended = this.waiter;
            this.waiter = null;
        }
        if (ended != null) {
            ended.finish(acquired);
        }
        if (!acquired && this.waiting && this.type.keepsPlace()) {
            this.engine.cleanUp(this::leave); // a Redis call: not on the thread that completed the future
        }
    }

    @Override
    boolean joinsLocalQueue() {
        return false;
    }
}
