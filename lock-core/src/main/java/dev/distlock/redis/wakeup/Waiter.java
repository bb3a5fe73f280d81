package dev.distlock.redis.wakeup;

import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * One waiting thread, or one non-blocking acquisition told by a callback. Armed before each attempt, so a release
 * between attempt and sleep is not missed.
 */
public final class Waiter {

    final KeyWaiters waiters;

    final String name;

    /** The waiting thread; null for a non-blocking waiter. */
    final @Nullable Thread thread;

    /** Told of each signal instead of a thread; runs on the signalling thread, so it must not block. */
    private final @Nullable Runnable onSignal;

    volatile boolean signalled;

    /** Whether the current attempt follows a wake-up: it was signalled when armed. */
    boolean wokenAttempt; // guarded by waiters

    boolean queued; // guarded by waiters

    private final ReleaseSubscriptions subscriptions;

    Waiter(ReleaseSubscriptions subscriptions, KeyWaiters waiters, String name, @Nullable Runnable onSignal) {
        this.subscriptions = subscriptions;
        this.waiters = waiters;
        this.name = name;
        this.onSignal = onSignal;
        this.thread = (onSignal == null) ? Thread.currentThread() : null;
    }

    /** Whether a release message will wake this waiter now (never subscribes). */
    public boolean isSubscribed() {
        return this.waiters.subscribed;
    }

    /**
     * Whether a release message will wake this waiter; if not, tries to subscribe once more, unless that is not
     * worth trying now.
     */
    public boolean subscribed() {
        if (!this.waiters.subscribed) {
            this.subscriptions.subscribe(this.waiters, true);
        }
        return this.waiters.subscribed;
    }

    public void arm() {
        this.waiters.arm(this);
    }

    /**
     * Sleeps until signalled or {@code nanos} pass.
     *
     * @return false when the thread was interrupted (the flag is cleared)
     */
    public boolean await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!this.signalled) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            LockSupport.parkNanos(this, left);
            if (Thread.interrupted()) {
                return false;
            }
        }
        return true;
    }

    /** Ends the current or next {@link #await} early, as a release would. */
    public void wake() {
        this.signalled = true;
        unpark();
    }

    /** Wakes the thread, or tells the callback; called after {@link #signalled} was set. */
    void unpark() {
        Runnable callback = this.onSignal;
        if (callback != null) {
            callback.run();
        }
        else {
            LockSupport.unpark(this.thread);
        }
    }

    public void finish(boolean acquired) {
        this.waiters.leave(this, acquired);
    }
}
