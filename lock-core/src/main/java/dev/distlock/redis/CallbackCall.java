package dev.distlock.redis;

import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockOptions;
import dev.distlock.redis.script.LockType.WakeUp;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;
import dev.distlock.redis.wakeup.Waiter;

/**
 * A lock call whose waiting is driven by callbacks, with no thread waiting ({@link AsyncAcquisition}): every wake-up
 * (its turn, a hand-off, a release message) runs {@link #wake()} on the waking thread, which must not block.
 */
abstract class CallbackCall extends LockRequest implements WaitDriver {

    /** Where the call subscribes: off the service's timer, since subscribing waits for Redis. */
    private final Executor subscriber;

    /** What a release message runs: {@link #wake()}; made on first need. */
    private @Nullable Runnable onSignal;

    CallbackCall(CallParts parts, Executor subscriber, String key, LockOptions options, String name, boolean waiting,
            Object owner) {
        super(parts, key, options, name, waiting, owner);
        this.subscriber = subscriber;
    }

    /** A wake-up: looks at the call's state again, on the waking thread. Never blocks. */
    abstract void wake();

    @Override
    public final void wakeUp() {
        wake();
    }

    @Override
    public final Waiter startWaiting(ReleaseSubscriptions subscriptions, String channel, WakeUp wakeUp, String name) {
        Runnable signal = this.onSignal;
        if (signal == null) {
            signal = this::wake;
            this.onSignal = signal;
        }
        return subscriptions.startWaiting(channel, wakeUp, name, signal, this.subscriber);
    }

    @Override
    public final boolean subscribed(Waiter waiter) {
        return waiter.isSubscribed();
    }

    /** Nothing: a hand-off wakes the call through {@link #wakeUp()}. */
    @Override
    public final void listening(@Nullable Waiter waiter) {
    }

    /** The hand-off's outcome wakes the call: this bounds only the cost of a wake-up missed anyway. */
    @Override
    public final long claimCheckNanos() {
        return WaitingCall.TURN_CHECK_NANOS;
    }

    /** Does not wait for a hand-off under way: its outcome wakes the call, which gives up again then. */
    @Override
    public final @Nullable RedisLockHandle giveUp(QueueTurn turn) {
        return turn.giveUpNow();
    }
}
