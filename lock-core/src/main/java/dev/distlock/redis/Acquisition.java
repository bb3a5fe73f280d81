package dev.distlock.redis;

import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.RestartGraceException;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.wakeup.Waiter;

/**
 * One call's attempts at one lock: re-entering the owner's hold, or taking a new one, and waiting between attempts
 * for a release. A re-entry only ever re-enters: when the owner's hold is past its deadline or gone in Redis, the hold
 * is reported lost (its unreleased handles learn it) and the call takes the lock anew, with a new fencing token.
 */
final class Acquisition extends LockRequest {

    /** The service's queue for this exclusive lock, while this call waits with it. */
    private @Nullable LocalQueue queue;

    Acquisition(LockEngine engine, String key, LockOptions options, String name, boolean waiting) {
        super(engine, key, options, name, waiting,
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
            this.queue = this.engine.queues.enter(this.key);
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
                this.engine.queues.exit(this.queue);
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
     * Waits for a release: woken by the release message (or a local release), and by the holder's lease running out,
     * which publishes nothing. Without a subscription ({@link WaitStrategy#POLLING}, or while subscribing fails) it
     * polls with capped exponential backoff and jitter.
     */
    private @Nullable RedisLockHandle waitFor(long startNanos, long waitNanos) {
        QueuedWait queued = (this.queue != null) ? new QueuedWait(this.queue, this::turn) : null;
        Waiter waiter = null;
        boolean acquired = false;
        try {
            WaitPause pauses = new WaitPause();
            while (true) {
                if (this.engine.isClosed()) {
                    throw new IllegalStateException(
                            "This LockService was closed while waiting for lock " + KeyText.quote(this.key));
                }
                long remaining = waitNanos - (System.nanoTime() - startNanos);
                int wakes = (queued != null) ? queued.wakes() : 0;
                RedisLockHandle handed = (queued != null) ? queued.handedOff(remaining) : null;
                if (handed != null) {
                    acquired = true;
                    return handed;
                }
                if (queued != null && !queued.first()) {
                    waiter = queued.stepBack(waiter);
                    if (remaining <= 0) {
                        return null;
                    }
                    if (!queued.awaitTurn(remaining)) {
                        throw interrupted();
                    }
                    continue;
                }
                if (waiter == null) {
                    waiter = this.engine.subscriptions.startWaiting(this.type.releaseChannel(this.key),
                            this.type.wakeUp(), freshHold().ownerToken());
                    if (queued != null) {
                        queued.competing(waiter);
                    }
                }
                // before the attempt: a waiter that subscribes again now misses no release after the attempt
                boolean subscribed = waiter.subscribed();
                waiter.arm();
                if (queued != null && queued.wakes() != wakes) {
                    continue; // handed the lock, or given back, before the arm: that wake-up is not lost
                }
                long holdBack = (queued != null) ? queued.holdBackNanos() : 0;
                if (holdBack <= 0) {
                    RedisLockHandle handle = (queued != null) ? queued.attempt(this::attempt) : attempt();
                    if (handle != null) {
                        acquired = true;
                        return handle;
                    }
                    if (queued != null && queued.claimed()) {
                        continue; // a hand-off came while the attempt ran
                    }
                }
                remaining = waitNanos - (System.nanoTime() - startNanos);
                if (remaining <= 0) {
                    return null;
                }
                long pause = pauses.next(this.holderRemainingMillis, holdBack,
                        this.type.keepsPlace() ? this.engine.placeRefreshNanos : 0, subscribed);
                if (!waiter.await(Math.min(pause, remaining))) {
                    throw interrupted();
                }
            }
        }
        finally {
            if (queued != null && !acquired) {
                queued.leave();
            }
            if (waiter != null) {
                waiter.finish(acquired);
            }
        }
    }

    private LockInterruptedException interrupted() {
        Thread.currentThread().interrupt();
        return new LockInterruptedException(this.key, new InterruptedException());
    }

    /** This call's place in the local queue, for a hold with its current owner token. */
    private QueueTurn turn(boolean newToken) {
        if (newToken) {
            newOwnerToken();
        }
        return new QueueTurn(freshHold(), this.name, this.leaseMillis, this.leaseNanos, this.watchdog);
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

    @Override
    boolean joinsLocalQueue() {
        return true;
    }
}
