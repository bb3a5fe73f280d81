package dev.distlock.redis;

import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.RestartGraceException;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.script.LockType.WakeUp;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;
import dev.distlock.redis.wakeup.Waiter;

/**
 * One call's attempts at one lock: re-entering the owner's hold, or taking a new one, and waiting between attempts
 * for a release. A re-entry only ever re-enters: when the owner's hold is past its deadline or gone in Redis, the hold
 * is reported lost (its unreleased handles learn it) and the call takes the lock anew, with a new fencing token.
 */
final class Acquisition extends LockRequest implements WaitDriver {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    /** How often the thread looks at a hand-off to it under way. */
    private static final long CLAIM_CHECK_NANOS = 100_000;

    /** The service's queue for this exclusive lock, while this call waits with it. */
    private @Nullable LocalQueue queue;

    /** The caller's thread, which waits. */
    private final Thread thread = Thread.currentThread();

    /** What the thread waits on for a release, while it competes in Redis: a hand-off wakes it from there too. */
    private volatile @Nullable Waiter listening;

    Acquisition(CallParts parts, String key, LockOptions options, String name, boolean waiting) {
        super(parts, key, options, name, waiting,
                (options.owner() != null) ? options.owner() : Thread.currentThread());
    }

    /**
     * Tries until granted or the wait ends; gives up any place kept in Redis when it ends without the lock. A waiting
     * exclusive call queues behind the service's other callers for the key ({@link LocalQueue}) instead of asking
     * Redis while one of them holds or waits for the lock.
     */
    @Nullable RedisLockHandle run(long startNanos, long waitNanos) {
        RedisLockHandle handle = null;
        if (this.waiting && this.type.handsOff()) {
            this.queue = this.parts.queues().enter(this.key);
        }
        try {
            if (this.queue == null || !this.queue.busy() || ownerHoldOpen()) {
                handle = attempt();
            }
            if (handle == null && this.waiting) {
                handle = waitFor(startNanos, waitNanos);
            }
            RestartGraceException grace = (handle == null) ? graceRefusal() : null;
            if (grace != null) {
                throw grace;
            }
            return handle;
        }
        finally {
            if (handle == null) {
                leave();
            }
            if (this.queue != null) {
                this.parts.queues().exit(this.queue);
            }
        }
    }

    /** One try: re-enters the owner's hold if it is open, else takes a new hold. */
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

    /**
     * Waits for a release: woken by the release message (or a local release), by a hand-off, and by the holder's lease
     * running out, which publishes nothing. Without a subscription ({@link WaitStrategy#POLLING}, or while subscribing
     * fails) it polls with capped exponential backoff and jitter. The thread drives the call's {@link WaitingCall}.
     */
    private @Nullable RedisLockHandle waitFor(long startNanos, long waitNanos) {
        WaitingCall call = new WaitingCall(this, this.parts.waits(), this.queue, startNanos, waitNanos, this);
        boolean acquired = false;
        try {
            WaitState step = call.next();
            while (true) {
                switch (step) {
                    case HANDED -> {
                        acquired = true;
                        return call.handedOff();
                    }
                    case GONE -> {
                        return null;
                    }
                    case ATTEMPTING -> {
                        RedisLockHandle handle = call.attempt(this::attempt);
                        if (handle != null) {
                            acquired = true;
                            return handle;
                        }
                        step = call.refused();
                        continue;
                    }
                    case CLAIMED -> LockSupport.parkNanos(this, call.pauseNanos());
                    case BEHIND -> {
                        LockSupport.parkNanos(this, call.pauseNanos());
                        if (Thread.interrupted()) {
                            throw interrupted();
                        }
                    }
                    case WAITING -> {
                        if (!call.releaseWaiter().await(call.pauseNanos())) {
                            throw interrupted();
                        }
                    }
                }
                step = call.next();
            }
        }
        finally {
            RedisLockHandle late = call.end(acquired);
            if (late != null) {
                releaseUnused(late);
            }
        }
    }

    @Override
    public void wakeUp() {
        Waiter current = this.listening;
        if (current != null) {
            current.wake();
        }
        LockSupport.unpark(this.thread);
    }

    /** Subscribes now, if it can, waiting for the subscription. */
    @Override
    public Waiter startWaiting(ReleaseSubscriptions subscriptions, String channel, WakeUp wakeUp, String name) {
        return subscriptions.startWaiting(channel, wakeUp, name);
    }

    @Override
    public boolean subscribed(Waiter waiter) {
        return waiter.subscribed();
    }

    @Override
    public void listening(@Nullable Waiter waiter) {
        this.listening = waiter;
    }

    @Override
    public long claimCheckNanos() {
        return CLAIM_CHECK_NANOS;
    }

    @Override
    public @Nullable RedisLockHandle giveUp(QueueTurn turn) {
        return turn.giveUpAfterClaim();
    }

    /** A lock handed over just as the call gave up: released at once, since nobody will use it. */
    private static void releaseUnused(RedisLockHandle late) {
        try {
            late.release();
        }
        catch (RuntimeException ex) {
            logger.debug("Could not pass on lock '" + late.key() + "', handed over as its waiter gave up", ex);
        }
    }

    private LockInterruptedException interrupted() {
        Thread.currentThread().interrupt();
        return new LockInterruptedException(this.key, new InterruptedException());
    }

    /** Asks Redis; null when refused (a re-entry: when the owner's hold is gone in Redis). */
    private @Nullable RedisLockHandle grant(Hold hold, boolean reentrant) {
        Grant grant = startGrant(hold, reentrant);
        long reply;
        try {
            reply = grant.call().run();
        }
        catch (DataAccessException ex) {
            throw grant.failed(ex);
        }
        return grant.replied(reply);
    }

}
