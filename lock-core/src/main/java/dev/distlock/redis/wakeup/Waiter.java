package dev.distlock.redis.wakeup;

import java.util.concurrent.locks.LockSupport;

/**
 * One waiting thread, or one non-blocking acquisition told by a callback. Armed before each attempt, so a release
 * between attempt and sleep is not missed.
 */
public final class Waiter {

    final KeyWaiters waiters;

    final KeyWaiters.Entry entry;

    /** Tries once more to subscribe the waiters' channel, unless that is not worth trying now. */
    private final Runnable resubscribe;

    Waiter(KeyWaiters waiters, KeyWaiters.Entry entry, Runnable resubscribe) {
        this.waiters = waiters;
        this.entry = entry;
        this.resubscribe = resubscribe;
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
            this.resubscribe.run();
        }
        return this.waiters.subscribed;
    }

    public void arm() {
        this.waiters.arm(this.entry);
    }

    /**
     * Sleeps until signalled or {@code nanos} pass.
     *
     * @return false when the thread was interrupted (the flag is cleared)
     */
    public boolean await(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (!this.entry.signalled) {
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
        this.entry.signalled = true;
        this.entry.unpark();
    }

    public void finish(boolean acquired) {
        this.waiters.leave(this.entry, acquired);
    }
}
