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
 * <p>Every step runs on the thread that woke the call, one thread at a time: a wake-up while another thread runs a
 * step, or while an attempt is in flight, makes that thread look again when it is done (a work-in-progress count, so
 * nothing blocks and no wake-up is lost). Without an explicit owner every call is its own owner. Completing or
 * cancelling the future from outside withdraws the call: it stops waiting, leaves the local queue, gives up any place
 * kept in Redis, and releases a grant or hand-off that lands afterwards. Closing the service completes every call
 * still pending ({@link AsyncThreads#closePending()}).
 */
final class AsyncAcquisition extends CallbackCall implements AsyncThreads.Pending {

    private final CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();

    /** Wake-ups not yet looked at; whoever raises it from 0 runs the steps, until an attempt is sent or it is 0. */
    private final AtomicInteger workInProgress = new AtomicInteger();

    private long startNanos;

    private long waitNanos;

    // The fields below are used by the thread running the steps only (handed on through workInProgress).

    private @Nullable LocalQueue queue;

    /** The wait, from the first refusal or from the start when others of this service wait already. */
    private @Nullable WaitingCall call;

    private @Nullable ScheduledFuture<?> pause;

    private boolean ended;

    /** Set once the future is completed, by this class or from outside. */
    private volatile boolean over;

    private volatile boolean acquired;

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
        if (this.over || current == null) {
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
            if (handle != null) {
                settle(handle, null);
            }
            else if (this.over) {
                leaveAgain(); // withdrawn while this attempt ran: it may have taken a place in Redis again
            }
            else if (this.call == null) {
                refusedAtFirst();
                return;
            }
            else {
                drain(this.workInProgress.get() == 1); // woken meanwhile: look again rather than pause
                return;
            }
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

    /** The first attempt was refused: the call ends, or waits, as a blocking call does. */
    private void refusedAtFirst() {
        if (this.waiting) {
            this.call = new WaitingCall(this, this.parts.waits(), this.queue, this.startNanos, this.waitNanos, this);
        }
        else {
            settle(null, graceRefusal());
        }
        drain(false);
    }

    /**
     * Gives up a place an attempt kept in Redis after the call ended: the clean-up of {@link #finish} may have run
     * before the attempt reached Redis and added the place again.
     */
    private void leaveAgain() {
        if (this.ended && this.waiting && this.type.keepsPlace()) {
            this.threads.cleanUp(this::leave);
        }
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

    /** The call is over, completed by this class or from outside: the next step ends its wait. */
    private void end(boolean granted) {
        this.acquired = granted;
        this.over = true;
        this.threads.done(this);
        wake();
    }

    /**
     * Ends the wait once: stops listening, leaves the local queue, gives up any place kept in Redis. A hand-off under
     * way at the end wakes the call again when decided, and the lock it hands over is released.
     */
    private void finish() {
        WaitingCall current = this.call;
        RedisLockHandle late = (current != null) ? current.end(this.acquired) : null;
        if (late != null) {
            late.releaseAsync();
        }
        if (this.ended || !this.over) {
            return;
        }
        this.ended = true;
        if (!this.acquired && this.waiting && this.type.keepsPlace()) {
            this.threads.cleanUp(this::leave); // a Redis call: not on the thread that completed the future
        }
        if (this.queue != null) {
            this.parts.queues().exit(this.queue);
        }
    }
}
