package dev.distlock.redis;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockOptions;
import dev.distlock.redis.lease.Hold;

/**
 * One waiting call for {@link LocalQueueModelCheckTest}, a {@link CallbackCall} as AsyncAcquisition is (which does
 * the same with futures and the service's timer): every wake-up (its turn, a hand-off, a release) runs its
 * {@code wake()}, and between steps the call waits only for such a wake-up, counted before each step so that none is
 * lost, with no timer: a wake-up the engine fails to give leaves it
 * spinning, which the model checker reports. Attempts run on the calling thread (Acquisition's grant), against the
 * stand-in Redis.
 */
final class ModelCaller extends CallbackCall implements AsyncThreads.Pending {

    /** Wake-ups told so far. */
    private final AtomicInteger wakes = new AtomicInteger();

    /** Set by {@link #cancel()}: the call withdraws at its next step, as a cancelled future does. */
    private volatile boolean cancelled;

    /** Set by the service's close ({@link #serviceClosed()}): the call fails at its next step, as AsyncAcquisition. */
    private volatile boolean closed;

    /** The service's pending non-blocking calls, which its close ends ({@link AsyncThreads#closePending()}). */
    private final AsyncThreads engineThreads;

    ModelCaller(LockEngine engine, String key, Object owner) {
        super(engine.calls, engine.async.subscriber(), key,
                LockOptions.defaults().withOwner(owner).withLeaseTime(Duration.ofSeconds(30)), key, true, owner);
        this.engineThreads = engine.async;
    }

    @Override
    void wake() {
        this.wakes.incrementAndGet();
    }

    /**
     * The service was closed ({@link LockEngine#endWaits()}, for every call that registered as AsyncAcquisition
     * registers): the call fails at its next step with the service's error, as AsyncAcquisition's future does.
     */
    @Override
    public void serviceClosed() {
        this.closed = true;
        this.wakes.incrementAndGet();
    }

    /** Withdraws the call, as completing its future from outside does: it is woken to end its wait. */
    void cancel() {
        this.cancelled = true;
        this.wakes.incrementAndGet();
    }

    /** The lock, or null when the call was cancelled first. */
    @Nullable RedisLockHandle run() {
        LocalQueue queue = this.parts.queues().enter(this.key);
        try {
            if (!queue.busy() || ownerHoldOpen()) {
                RedisLockHandle handle = attempt();
                if (handle != null) {
                    return handle;
                }
            }
            return waitFor(queue);
        }
        finally {
            this.parts.queues().exit(queue);
        }
    }

    private @Nullable RedisLockHandle waitFor(LocalQueue queue) {
        WaitingCall call = new WaitingCall(this, this.parts.waits(), queue, System.nanoTime(),
                TimeUnit.SECONDS.toNanos(10), this);
        boolean acquired = false;
        this.engineThreads.started(this);
        try {
            int seen = this.wakes.get();
            WaitState step = next(call, false);
            while (true) {
                switch (step) {
                    case HANDED -> {
                        acquired = true;
                        return call.handedOff();
                    }
                    case GONE -> throw new AssertionError("the wait ended, with time standing still");
                    case ATTEMPTING -> {
                        RedisLockHandle handle = call.attempt(this::attempt);
                        if (handle != null) {
                            acquired = true;
                            return handle;
                        }
                        seen = this.wakes.get();
                        step = next(call, true);
                        continue;
                    }
                    default -> { // CLAIMED, BEHIND, WAITING: until woken
                    }
                }
                while (this.wakes.get() == seen) {
                    Thread.onSpinWait();
                }
                if (this.cancelled) {
                    return withdraw(call);
                }
                seen = this.wakes.get();
                step = next(call, false);
            }
        }
        catch (IllegalStateException closed) { // as AsyncAcquisition: its future fails, then it withdraws
            this.cancelled = true;
            withdraw(call);
            throw closed;
        }
        finally {
            this.engineThreads.done(this);
            if (!this.cancelled) {
                call.end(acquired);
            }
        }
    }

    /** The call's next step, or its refusal's; the service's error once closed, as WaitingCall gives it. */
    private WaitState next(WaitingCall call, boolean afterRefusal) {
        if (this.closed) {
            throw new IllegalStateException("This LockService was closed while waiting for lock " + this.key);
        }
        return afterRefusal ? call.refused() : call.next();
    }

    /**
     * Ends a cancelled wait as AsyncAcquisition ends it: at each wake-up until no hand-off to the call is under way
     * (the outcome wakes it), releasing a lock handed over meanwhile, which nobody will use.
     */
    private @Nullable RedisLockHandle withdraw(WaitingCall call) {
        while (true) {
            int seen = this.wakes.get();
            RedisLockHandle late = call.end(false);
            if (late != null) {
                late.release();
            }
            if (!handOffUnderWay(call)) {
                return null;
            }
            while (this.wakes.get() == seen) {
                Thread.onSpinWait();
            }
        }
    }

    /** Whether a hand-off to the call is under way: its turn, which WaitingCall keeps to itself, is claimed. */
    private static boolean handOffUnderWay(WaitingCall call) {
        try {
            Field turn = WaitingCall.class.getDeclaredField("turn");
            turn.setAccessible(true);
            QueueTurn current = (QueueTurn) turn.get(call);
            return current != null && current.claimed();
        }
        catch (ReflectiveOperationException ex) {
            throw new AssertionError(ex);
        }
    }

    /** Acquisition's attempt: re-enters the owner's open hold, else asks for a new one. */
    private @Nullable RedisLockHandle attempt() {
        Hold current = reentryTarget();
        if (current != null) {
            RedisLockHandle handle = grant(current, true);
            if (handle != null) {
                return handle;
            }
            reentryRefused(current);
        }
        return grant(freshHold(), false);
    }

    private @Nullable RedisLockHandle grant(Hold hold, boolean reentrant) {
        Grant grant = startGrant(hold, reentrant);
        return grant.replied(grant.call().run());
    }
}
