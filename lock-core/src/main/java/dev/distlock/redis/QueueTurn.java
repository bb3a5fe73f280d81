package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.wakeup.Waiter;

/**
 * One waiting call's place in a {@link LocalQueue}, whether its caller blocks a thread or holds a future. States: idle
 * (waiting), attempting (its own Redis attempt), claimed (a releasing holder is handing the lock to it), handed (it
 * holds the lock: {@link #handle}), gone (it took the handed lock, or gave up).
 */
final class QueueTurn {

    static final int IDLE = 0;

    static final int ATTEMPTING = 1;

    static final int CLAIMED = 2;

    static final int HANDED = 3;

    static final int GONE = 4;

    final Hold hold;

    final String name;

    final String leaseMillis;

    final long leaseNanos;

    final boolean watchdog;

    /** The blocking caller's thread; null for a non-blocking call, which {@link #onWake} tells instead. */
    private final @Nullable Thread thread;

    /** Runs the non-blocking call's next step on the waking thread (it must not block); null for a blocking call. */
    private final @Nullable Runnable onWake;

    private final AtomicInteger state = new AtomicInteger(IDLE);

    final AtomicInteger wakes = new AtomicInteger();

    /** Set when the waiter competes in Redis, so that a hand-off can wake it from its wait for a release. */
    volatile @Nullable Waiter waiter;

    private volatile @Nullable RedisLockHandle handle;

    /** A hand-off failed with its outcome unknown: the waiter takes a new owner token. */
    volatile boolean tokenSpoilt;

    QueueTurn(Hold hold, String name, String leaseMillis, long leaseNanos, boolean watchdog,
            @Nullable Runnable onWake) {
        this.onWake = onWake;
        this.thread = (onWake == null) ? Thread.currentThread() : null;
        this.hold = hold;
        this.name = name;
        this.leaseMillis = leaseMillis;
        this.leaseNanos = leaseNanos;
        this.watchdog = watchdog;
    }

    boolean claim() {
        return this.state.compareAndSet(IDLE, CLAIMED);
    }

    /** Before its own Redis attempt; false when a hand-off is under way. */
    boolean startAttempt() {
        return this.state.compareAndSet(IDLE, ATTEMPTING);
    }

    void endAttempt() {
        this.state.compareAndSet(ATTEMPTING, IDLE);
    }

    boolean claimed() {
        return this.state.get() == CLAIMED;
    }

    /** The handed-off lock, taken once: the turn is gone afterwards. */
    @Nullable RedisLockHandle takeHandedOff() {
        return this.state.compareAndSet(HANDED, GONE) ? this.handle : null;
    }

    void handed(RedisLockHandle granted) {
        this.handle = granted;
        this.state.set(HANDED);
        wake();
    }

    void notHanded(boolean spoilt) {
        this.tokenSpoilt |= spoilt;
        this.state.set(IDLE);
        wake();
    }

    /**
     * Gives up the turn; when a hand-off is under way, waits for its outcome (a blocking caller's thread only).
     *
     * @return the handed-off lock, when it came first
     */
    @Nullable RedisLockHandle giveUp() {
        while (this.state.get() == CLAIMED) {
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
            int now = this.state.get();
            if (now == HANDED) {
                RedisLockHandle late = takeHandedOff();
                if (late != null) {
                    return late;
                }
            }
            else if (now == CLAIMED || now == GONE || this.state.compareAndSet(now, GONE)) {
                return null;
            }
        }
    }

    /** Tells the call to look at its turn again: it became first, was handed the lock, or was given back. */
    void wake() {
        this.wakes.incrementAndGet();
        Runnable callback = this.onWake;
        if (callback != null) {
            callback.run();
            return;
        }
        Waiter current = this.waiter;
        if (current != null) {
            current.wake();
        }
        LockSupport.unpark(this.thread);
    }
}
