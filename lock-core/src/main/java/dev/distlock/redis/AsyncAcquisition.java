package dev.distlock.redis;

import static dev.distlock.internal.Futures.unwrap;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.ReplicaAcknowledgement;

/**
 * One non-blocking call's attempts at one lock, as {@link Acquisition} makes them but with no thread waiting: each
 * attempt is a script sent without blocking, and the call's {@link WaitingCall} (the same state machine a blocking
 * call drives) is driven by callbacks: the release message, a local release, a hand-off, its turn in the local queue,
 * or the service's timer when a pause ends. Callers of both styles share one local queue and one hand-off per lock.
 *
 * <p>The call's life is one {@link CallLife}; its wait's state is its {@link WaitingCall}'s. Its steps run on the
 * thread that woke it, one at a time ({@link #workInProgress}); an attempt in flight keeps that turn until its reply,
 * so the clean-up of a call completed meanwhile follows the reply and gives up a place the attempt took in Redis again.
 * Without an explicit owner every call is its own owner. Completing or cancelling the future from outside withdraws
 * the call: it stops waiting, leaves the local queue, gives up any place kept in Redis, and releases a grant or
 * hand-off that lands afterwards. Closing the service completes every call still pending
 * ({@link AsyncThreads#closePending()}).
 */
final class AsyncAcquisition extends CallbackCall implements AsyncThreads.Pending {

    private final CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();

    /**
     * The call's one state: set once by {@link #end} on the thread completing the future, then by {@link #finish},
     * which read it, on the thread running the steps. Volatile, so that a step or a reply sees a completion from
     * outside.
     */
    private volatile CallLife life = CallLife.OPEN;

    /**
     * A serialiser, not a state of the call or of its wait: the count of wake-ups not yet looked at, which says who
     * runs the next step, never what it does (that follows from {@link #life} and the {@link WaitingCall} alone).
     * Whoever raises it from 0 runs the steps until it is back at 0 or an attempt is sent, whose reply runs on in the
     * same turn; a wake-up meanwhile only counts up, so none is lost and no thread blocks. Its atomic updates hand the
     * fields below from one such thread to the next.
     */
    private final AtomicInteger workInProgress = new AtomicInteger();

    private long startNanos;

    private long waitNanos;

    // The fields below are used by the thread running the steps only (handed on through workInProgress).

    private @Nullable LocalQueue queue;

    /** The wait, from the first refusal or from the start when others of this service wait already. */
    private @Nullable WaitingCall call;

    private @Nullable ScheduledFuture<?> pause;

    private final AsyncThreads threads;

    AsyncAcquisition(CallParts parts, AsyncThreads threads, String key, LockOptions options, String name,
            boolean waiting) {
        super(parts, threads.subscriber(), key, options, name, waiting,
                (options.owner() != null) ? options.owner() : new Object());
        this.threads = threads;
    }

    /**
     * Starts the first attempt, or, when other callers of this service already wait for the exclusive lock (or hold
     * it), queues behind them; the future completes with the handle, or null when the lock stayed held.
     */
    CompletableFuture<@Nullable LockHandle> start(long startNanos, long waitNanos) {
        this.startNanos = startNanos;
        this.waitNanos = waitNanos;
        this.workInProgress.set(1); // this thread runs the first step
        this.result.whenComplete((handle, failure) -> end(handle != null));
        this.threads.started(this);
        if (this.threads.isClosed()) { // closed since the call was checked: close() may have missed this one
            serviceClosed();
            drain(false);
            return this.result;
        }
        if (this.waiting && this.type.handsOff()) {
            this.queue = this.parts.queues().enter(this.key);
        }
        if (this.queue != null && this.queue.busy() && !ownerHoldOpen()) {
            this.call = new WaitingCall(this, this.parts.waits(), this.queue, startNanos, waitNanos, this);
            drain(false);
        }
        else {
            attempt();
        }
        return this.result;
    }

    /** A wake-up: runs the next step now, or makes the thread running one look again. Never blocks. */
    @Override
    void wake() {
        if (this.workInProgress.getAndIncrement() == 0) {
            drain(false);
        }
    }

    /** Runs steps while wake-ups are pending; stops when an attempt is sent (its reply runs on). */
    private void drain(boolean afterRefusal) {
        int missed = this.workInProgress.get();
        boolean refused = afterRefusal;
        while (true) {
            if (!step(refused)) {
                return;
            }
            refused = false;
            missed = this.workInProgress.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /** One step of the wait; false when an attempt was sent. */
    private boolean step(boolean afterRefusal) {
        if (this.pause != null) {
            this.pause.cancel(false);
            this.pause = null;
        }
        WaitingCall current = this.call;
        if (this.life != CallLife.OPEN || current == null) {
            finish();
            return true;
        }
        WaitState next;
        try {
            next = afterRefusal ? current.refused() : current.next();
        }
        catch (IllegalStateException closed) {
            settle(null, closed);
            return true;
        }
        switch (next) {
            case HANDED -> settle(current.handedOff(), null);
            case GONE -> settle(null, graceRefusal());
            case ATTEMPTING -> {
                if (!current.startAttempt()) {
                    this.workInProgress.incrementAndGet(); // a hand-off is under way: look again
                    return true;
                }
                attempt();
                return false;
            }
            default -> schedulePause(current.pauseNanos());
        }
        return true;
    }

    /** One try: re-enters the owner's hold if it is open, else takes a new one. Wake-ups so far are looked at. */
    private void attempt() {
        int seen = this.workInProgress.get();
        this.workInProgress.addAndGet(1 - seen); // this attempt looks at Redis for them; later ones count on
        Hold current = reentryTarget();
        send((current != null) ? current : freshHold(), current != null);
    }

    private void send(Hold hold, boolean reentrant) {
        Grant grant = startGrant(hold, reentrant);
        ReplicaAcknowledgement acknowledgement = this.parts.replicaAcknowledgement();
        if (acknowledgement == null) {
            grant.call().runAsync().whenComplete((reply, failure) -> replied(grant, hold, reentrant,
                    (reply != null) ? reply : 0, UNKNOWN, failure));
        }
        else { // WAIT follows a grant on its own connection before the reply is looked at
            grant.call().runAcknowledgedAsync(acknowledgement.replicas(), acknowledgement.timeout().toMillis())
                .whenComplete((acknowledged, failure) -> replied(grant, hold, reentrant,
                        (acknowledged != null) ? acknowledged.reply() : 0,
                        (acknowledged != null) ? acknowledged.acknowledged() : UNKNOWN, failure));
        }
    }

    /** An attempt's outcome: its reply and the replicas that acknowledged it ({@link #UNKNOWN}: not counted). */
    private void replied(Grant grant, Hold hold, boolean reentrant, long reply, long acknowledged,
            @Nullable Throwable failure) {
        try { // whatever fails here completes the call: nothing is lost in a future's callback
            if (failure != null) {
                Throwable cause = unwrap(failure);
                throw (cause instanceof DataAccessException ex) ? grant.failed(ex) : cause;
            }
            RedisLockHandle handle = grant.replied(reply, acknowledged);
            if (handle == null && reentrant) {
                reentryRefused(hold);
                send(freshHold(), false);
                return;
            }
            attempted(handle);
            if (handle == null && this.life == CallLife.OPEN) {
                refused();
                return;
            }
            if (handle != null) {
                settle(handle, null);
            } // else withdrawn while this attempt ran: the next step ends the wait (see the class comment)
        }
        catch (Throwable ex) {
            attempted(null);
            settle(null, ex);
        }
        drain(false);
    }

    private void attempted(@Nullable RedisLockHandle handle) {
        if (this.call != null) {
            this.call.attempted(handle);
        }
    }

    /** A refused attempt: after the first the call ends, or waits, as a blocking call does; then it looks again. */
    private void refused() {
        if (this.call != null) {
            drain(this.workInProgress.get() == 1); // woken meanwhile: look again rather than pause
            return;
        }
        if (this.waiting) {
            this.call = new WaitingCall(this, this.parts.waits(), this.queue, this.startNanos, this.waitNanos, this);
        }
        else {
            settle(null, graceRefusal());
        }
        drain(false);
    }

    @Override
    public void serviceClosed() {
        settle(null, new IllegalStateException("This LockService was closed while waiting for lock "
                + KeyText.quote(this.key)));
    }

    /** Wakes the call when the pause ends; a closed timer means a closed service, which the next step finds. */
    private void schedulePause(long pauseNanos) {
        try {
            this.pause = this.threads.timer().schedule(this::wake, Math.max(0, pauseNanos), TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException ex) {
            this.workInProgress.incrementAndGet();
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

    /** The call is over, completed by this class or from outside (once): the next step ends its wait. */
    private void end(boolean granted) {
        this.life = granted ? CallLife.GRANTED : CallLife.NOT_GRANTED;
        this.threads.done(this);
        wake();
    }

    /**
     * Ends the wait once: stops listening, leaves the local queue, gives up any place kept in Redis. A hand-off under
     * way at the end wakes the call again when decided, and the lock it hands over is released.
     */
    private void finish() {
        CallLife now = this.life;
        if (now == CallLife.OPEN || now == CallLife.GRANTED_ENDED) {
            return;
        }
        WaitingCall current = this.call;
        RedisLockHandle late = (current != null) ? current.end(now == CallLife.GRANTED) : null;
        if (late != null) {
            late.releaseAsync();
        }
        if (now == CallLife.NOT_GRANTED_ENDED) {
            return;
        }
        this.life = (now == CallLife.GRANTED) ? CallLife.GRANTED_ENDED : CallLife.NOT_GRANTED_ENDED;
        if (now == CallLife.NOT_GRANTED && this.waiting && this.type.keepsPlace()) {
            this.threads.cleanUp(this::leave); // a Redis call: not on the thread that completed the future
        }
        if (this.queue != null) {
            this.parts.queues().exit(this.queue);
        }
    }
}
