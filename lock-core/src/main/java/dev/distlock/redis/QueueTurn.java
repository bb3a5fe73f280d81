package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.wakeup.Waiter;

/**
 * One waiting call's place in a {@link LocalQueue}. States: idle (waiting), attempting (its own Redis attempt), claimed
 * (a releasing holder is handing the lock to it), handed (it holds the lock: {@link #handle}), gone (it gave up).
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

    final Thread thread = Thread.currentThread();

    private final AtomicInteger state = new AtomicInteger(IDLE);

    final AtomicInteger wakes = new AtomicInteger();

    /** Set when the waiter competes in Redis, so that a hand-off can wake it from its wait for a release. */
    volatile @Nullable Waiter waiter;

    private volatile @Nullable RedisLockHandle handle;

    /** A hand-off failed with its outcome unknown: the waiter takes a new owner token. */
    volatile boolean tokenSpoilt;

    QueueTurn(Hold hold, String name, String leaseMillis, long leaseNanos, boolean watchdog) {
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

    /** The handed-off lock, once. */
    @Nullable RedisLockHandle handedOff() {
        return (this.state.get() == HANDED) ? this.handle : null;
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
     * Gives up the turn; when a hand-off is under way, waits for its outcome.
     *
     * @return the handed-off lock, when it came first
     */
    @Nullable RedisLockHandle giveUp() {
        while (true) {
            int now = this.state.get();
            if (now == HANDED) {
                return this.handle;
            }
            if (now == CLAIMED) {
                LockSupport.parkNanos(this, 100_000); // the hand-off's script call is under way
            }
            else if (now == GONE || this.state.compareAndSet(now, GONE)) {
                return null;
            }
        }
    }

    void wake() {
        this.wakes.incrementAndGet();
        Waiter current = this.waiter;
        if (current != null) {
            current.wake();
        }
        LockSupport.unpark(this.thread);
    }
}
