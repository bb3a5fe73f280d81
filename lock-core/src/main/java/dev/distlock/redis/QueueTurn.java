package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.lease.Hold;

/**
 * One waiting call's place in a {@link LocalQueue}, whether its caller blocks a thread or holds a future: its
 * {@link WaitState} (waiting, attempting, claimed, handed, gone; changed only by compare-and-set, see there), the lock
 * handed to it, and its wake-ups, told to the call's driver.
 */
final class QueueTurn {

    /** Whom a turn tells of each wake-up. */
    interface Caller {

        /** Wakes the caller to look at its turn again; on the waking thread, so it never blocks. */
        void wakeUp();
    }

    final Hold hold;

    final String name;

    final long leaseNanos;

    final boolean watchdog;

    private final Caller caller;

    private final AtomicReference<WaitState> state = new AtomicReference<>(WaitState.WAITING);

    /** Wake-ups so far: a call that looks at its turn before arming its waiter sees one that came meanwhile. */
    private final AtomicInteger wakes = new AtomicInteger();

    private volatile @Nullable RedisLockHandle handle;

    /** A hand-off failed with its outcome unknown: the waiter takes a new owner token. */
    private volatile boolean tokenSpoilt;

    QueueTurn(Hold hold, String name, long leaseNanos, boolean watchdog, Caller caller) {
        this.caller = caller;
        this.hold = hold;
        this.name = name;
        this.leaseNanos = leaseNanos;
        this.watchdog = watchdog;
    }

    boolean claim() {
        return this.state.compareAndSet(WaitState.WAITING, WaitState.CLAIMED);
    }

    /** Before its own Redis attempt; false when a hand-off is under way. */
    boolean startAttempt() {
        return this.state.compareAndSet(WaitState.WAITING, WaitState.ATTEMPTING);
    }

    void endAttempt() {
        this.state.compareAndSet(WaitState.ATTEMPTING, WaitState.WAITING);
    }

    boolean claimed() {
        return this.state.get() == WaitState.CLAIMED;
    }

    int wakes() {
        return this.wakes.get();
    }

    boolean tokenSpoilt() {
        return this.tokenSpoilt;
    }

    /** The handed-off lock, taken once: the turn is gone afterwards. */
    @Nullable RedisLockHandle takeHandedOff() {
        return this.state.compareAndSet(WaitState.HANDED, WaitState.GONE) ? this.handle : null;
    }

    void handed(RedisLockHandle granted) {
        this.handle = granted;
        this.state.set(WaitState.HANDED);
        wake();
    }

    void notHanded(boolean spoilt) {
        this.tokenSpoilt |= spoilt;
        this.state.set(WaitState.WAITING);
        wake();
    }

    /**
     * Gives up the turn after waiting for the outcome of a hand-off under way (a blocking caller's thread only).
     *
     * @return the handed-off lock, when it came first
     */
    @Nullable RedisLockHandle giveUpAfterClaim() {
        while (this.state.get() == WaitState.CLAIMED) {
            LockSupport.parkNanos(this, 100_000); // the hand-off's script call is under way
        }
        return giveUpNow();
    }

    /**
     * Gives up the turn without waiting. While a hand-off is under way nothing changes (null): its outcome wakes the
     * call, which gives up again then.
     *
     * @return the handed-off lock, once, when it came first
     */
    @Nullable RedisLockHandle giveUpNow() {
        while (true) {
            WaitState now = this.state.get();
            if (now == WaitState.HANDED) {
                RedisLockHandle late = takeHandedOff();
                if (late != null) {
                    return late;
                }
            }
            else if (now == WaitState.CLAIMED || now == WaitState.GONE
                    || this.state.compareAndSet(now, WaitState.GONE)) {
                return null;
            }
        }
    }

    /** Tells the call to look at its turn again: it became first, was handed the lock, or was given back. */
    void wake() {
        this.wakes.incrementAndGet();
        this.caller.wakeUp();
    }
}
