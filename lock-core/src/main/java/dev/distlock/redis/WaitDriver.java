package dev.distlock.redis;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.script.LockType.WakeUp;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;
import dev.distlock.redis.wakeup.Waiter;

/**
 * How the caller of a {@link WaitingCall} waits and is woken: {@link Acquisition} parks its thread,
 * {@link AsyncAcquisition} runs a callback on the waking thread.
 */
interface WaitDriver extends QueueTurn.Caller {

    /** Wakes the caller to ask {@link WaitingCall#next()} again; on the waking thread, so it never blocks. */
    @Override
    void wakeUp();

    /** Starts waiting for a release on {@code channel}. */
    Waiter startWaiting(ReleaseSubscriptions subscriptions, String channel, WakeUp wakeUp, String name);

    /** Whether a release message will wake the caller now; a parked thread's waiter may subscribe first. */
    boolean subscribed(Waiter waiter);

    /** The waiter the caller waits on for a release, or null: a hand-off wakes a parked thread from it. */
    void listening(@Nullable Waiter waiter);

    /** How long the caller waits before looking again at a hand-off to it under way. */
    long claimCheckNanos();

    /**
     * Gives up the call's turn: a parked thread waits for the outcome of a hand-off under way; a callback does not
     * (the outcome wakes it, and it gives up again then).
     *
     * @return the handed-off lock, when it came first
     */
    @Nullable RedisLockHandle giveUp(QueueTurn turn);
}
