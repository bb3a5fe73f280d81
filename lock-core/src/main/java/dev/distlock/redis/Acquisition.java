package dev.distlock.redis;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LeaseExpiredOnArrivalException;
import dev.distlock.LeaseLostException;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.RestartGraceException;
import dev.distlock.redis.lease.Hold.HoldKey;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.ReplicaAcknowledgement;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.script.RestartGrace;
import dev.distlock.redis.wakeup.Waiter;

/**
 * One call's attempts at one lock: re-entering the owner's hold, or taking a new one, and waiting between attempts
 * for a release. A re-entry only ever re-enters: when the owner's hold is past its deadline or gone in Redis, the hold
 * is reported lost (its unreleased handles learn it) and the call takes the lock anew, with a new fencing token.
 */
final class Acquisition {

    private static final Log logger = LogFactory.getLog(RedisLockService.class); // logged as the service

    private final LockEngine engine;

    private final String key;

    private final String name;

    private final LockType type;

    private final HoldKey holdKey;

    /** Whether the caller waits when refused, keeping a place in Redis if the type has one. */
    private final boolean waiting;

    private final boolean watchdog;

    private final long leaseNanos;

    private final String leaseMillis;

    /** The new hold this call would create; its owner token is made once, not per attempt. */
    private @Nullable Hold fresh;

    /** The service's queue for this exclusive lock, while this call waits with it. */
    private @Nullable LocalQueue queue;

    /** From the last failed attempt: the holder's remaining lease, or -1 when unknown. */
    private long holderRemainingMillis = -1;

    /** From the last failed attempt: how long the restart grace holds back new grants, or -1 when it did not. */
    private long graceLeftMillis = -1;

    Acquisition(LockEngine engine, String key, LockOptions options, String name, boolean waiting) {
        this.engine = engine;
        this.key = key;
        this.name = name;
        this.type = engine.types.get(options.mode());
        this.waiting = waiting;
        Object owner = options.owner();
        this.holdKey = new HoldKey(owner != null ? owner : Thread.currentThread(), key, options.mode());
        Duration lease = options.leaseTime();
        this.watchdog = (lease == null);
        this.leaseNanos = (lease == null) ? engine.watchdogLeaseNanos : lease.toNanos();
        this.leaseMillis = (lease == null) ? engine.watchdogLeaseMillis : Long.toString(lease.toMillis());
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
            if (handle == null && this.graceLeftMillis >= 0) {
                throw new RestartGraceException(this.key, Duration.ofMillis(this.graceLeftMillis));
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

    private boolean ownerHoldOpen() {
        Hold current = this.engine.holds.get(this.holdKey);
        return current != null && !current.isOver();
    }

    /** One try: re-enters the owner's hold if it is open, else takes a new hold. */
    private @Nullable RedisLockHandle attempt() {
        Hold current = this.engine.holds.get(this.holdKey);
        if (current != null && !current.isOver()) {
            if (!current.isValid()) {
                this.engine.holds.lose(current, new LeaseLostException(this.key, "The lease of lock "
                        + KeyText.quote(this.key) + " ran out before its owner acquired it again"));
            }
            else if (current.open()) {
                RedisLockHandle handle = grant(current, true);
                if (handle != null) {
                    return handle;
                }
                this.engine.holds.lose(current, new LeaseLostException(this.key, "Lock " + KeyText.quote(this.key)
                        + " was no "
                        + "longer held by its owner when the owner acquired it again: the lease was lost meanwhile"));
            }
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
            this.fresh = null;
        }
        return new QueueTurn(freshHold(), this.name, this.leaseMillis, this.leaseNanos, this.watchdog);
    }

    /**
     * The hold a new grant creates. Its owner token is made once per call, or shared with the owner's hold of the
     * other side of a read/write lock, so that the write holder may read and a lone reader may write.
     */
    private Hold freshHold() {
        Hold hold = this.fresh;
        if (hold == null) {
            LockMode sharing = this.type.sharesOwnerTokenWith();
            Hold other = (sharing == null) ? null
                    : this.engine.holds.get(new HoldKey(this.holdKey.owner(), this.key, sharing));
            String ownerToken = (other != null && !other.isOver()) ? other.ownerToken() : this.engine.newToken(16);
            hold = new Hold(this.holdKey, this.type, this.type.releaseChannel(this.key), ownerToken);
            this.fresh = hold;
        }
        return hold;
    }

    /**
     * Gives up the place a waiting call kept in Redis. Best effort: a place that cannot be removed lapses by itself
     * within the waiter lease. A closed service writes nothing more, as if its process had died.
     */
    private void leave() {
        Hold hold = this.fresh;
        if (this.waiting && this.type.keepsPlace() && hold != null) {
            this.engine.leavePlace(hold);
        }
    }

    /** Asks Redis; null when refused (a re-entry: when the owner's hold is gone in Redis). */
    private @Nullable RedisLockHandle grant(Hold hold, boolean reentrant) {
        String holdId = hold.nextHoldId();
        long sentNanos = System.nanoTime();
        GrantFailures failures = new GrantFailures(this.engine, hold, holdId, this.watchdog);
        long reply;
        try {
            reply = this.type.acquire(hold,
                    new LockType.Grant(holdId, this.leaseMillis, this.watchdog, reentrant, this.waiting));
        }
        catch (DataAccessException ex) {
            closeReentry(hold, reentrant);
            throw failures.failed(ex);
        }
        this.graceLeftMillis = RestartGrace.refused(reply) ? RestartGrace.leftMillis(reply) : -1;
        if (reply <= 0) {
            this.holderRemainingMillis = (this.graceLeftMillis >= 0) ? this.graceLeftMillis : -reply - 1;
            closeReentry(hold, reentrant);
            return null;
        }
        long repliedNanos = System.nanoTime();
        if (repliedNanos - (sentNanos + this.leaseNanos) >= 0) {
            closeReentry(hold, reentrant);
            LeaseExpiredOnArrivalException late = failures.expiredOnArrival(Duration.ofNanos(repliedNanos - sentNanos),
                    this.leaseMillis);
            if (!this.waiting) {
                throw late;
            }
            logger.debug(late.getMessage() + "; trying again");
            this.holderRemainingMillis = 0;
            return null;
        }
        ReplicaAcknowledgement acknowledgement = this.engine.replicaAcknowledgement;
        if (acknowledgement != null) {
            long acknowledged = acknowledgement.await(this.type.context.scripts());
            if (acknowledged < acknowledgement.replicas()) {
                closeReentry(hold, reentrant);
                throw failures.notReplicated(acknowledgement.shortfall(acknowledged));
            }
        }
        RedisLockHandle handle = new RedisLockHandle(this.engine.releases, hold, holdId, this.name, reply, sentNanos,
                this.watchdog, this.leaseNanos);
        hold.granted(handle, sentNanos, this.leaseNanos);
        if (!reentrant) {
            hold.open();
            this.engine.holds.add(hold);
            if (this.type.handsOff()) {
                this.engine.queues.held(hold);
            }
        }
        if (this.watchdog) {
            this.engine.watchdog.watch(hold);
        }
        return handle;
    }

    /** A re-entry that was counted open before its Redis call but not granted: counts it closed again. */
    private void closeReentry(Hold hold, boolean reentrant) {
        if (reentrant && hold.close()) {
            this.engine.holds.forget(hold);
        }
    }
}
