package dev.distlock.redis;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.redis.lease.ReplicaAcknowledgement;
import dev.distlock.redis.script.ScriptReplies;
import dev.distlock.redis.script.LockType;

/**
 * Hands an exclusive lock from a releasing holder to a waiter of the same service in one script call (handoff.lua):
 * the waiter gets a new owner token's grant, a new and higher fencing token and a fresh lease, and holds it like any
 * other grant (renewed by the watchdog, its loss reported). Runs are bounded by count and time, so that waiters of
 * other processes, which Redis has refused meanwhile, get the lock.
 */
final class HandOffs {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    private final LocalQueues queues;

    private final Holds holds;

    private final LeaseWatchdog watchdog;

    private final int maxRun;

    private final long maxRunNanos;

    private final LockEventListener listener;

    /** Undoes a hand-off's grant whose outcome is unknown (see {@link GrantFailures#handOffFailed()}). */
    private final GrantFailures.Parts failures;

    private final @Nullable ReplicaAcknowledgement replicaAcknowledgement;

    HandOffs(GrantFailures.Parts failures, @Nullable ReplicaAcknowledgement replicaAcknowledgement, LocalQueues queues,
            Holds holds, LeaseWatchdog watchdog, int maxRun, long maxRunNanos, LockEventListener listener) {
        this.failures = failures;
        this.replicaAcknowledgement = replicaAcknowledgement;
        this.listener = listener;
        this.queues = queues;
        this.holds = holds;
        this.watchdog = watchdog;
        this.maxRun = maxRun;
        this.maxRunNanos = maxRunNanos;
    }

    /**
     * Hands the lock of {@code handle}'s last hold to a local waiter, if one is queued.
     *
     * @return the release script's kind of answer when the call decided the release ({@link ScriptReplies#FREED} for a
     * hand-off, or why the holder no longer had the lock), or null when the caller should release as usual
     * @throws DataAccessException when Redis failed on every try; the waiter waits on with a new owner token, and a
     * grant to its old one is undone
     */
    @Nullable Long handOff(RedisLockHandle handle, LockType.Release release,
            RedisLockHandle.Releaser releases) {
        Hold hold = handle.hold;
        LocalQueue queue = this.queues.get(hold.key());
        if (this.maxRun == 0 || queue == null || !hold.type().handsOff()) {
            return null;
        }
        QueueTurn next = queue.claim(hold);
        if (next == null) {
            return null;
        }
        boolean atBound = queue.runAtBound(this.maxRun, this.maxRunNanos);
        String holdId = next.hold.nextHoldId();
        LockType.Grant grant = new LockType.Grant(holdId, next.leaseNanos, next.watchdog, false, true);
        long sentNanos = System.nanoTime();
        long reply;
        try {
            reply = ReleaseRetries.run(() -> hold.type().handOff(hold, release, next.hold, grant, atBound));
        }
        catch (DataAccessException ex) {
            queue.giveBack(next, true); // it may hold the lock under its token now: it waits on with a new one
            new GrantFailures(this.failures, next.hold, holdId, next.watchdog).handOffFailed();
            throw ex;
        }
        if (reply <= 0) {
            queue.giveBack(next, false);
            if (reply == ScriptReplies.OTHERS_WAIT) {
                queue.yieldToOthers(hold);
                return null;
            }
            return (reply == ScriptReplies.OTHER_HOLDS_REMAIN) ? null : reply;
        }
        if (System.nanoTime() - (sentNanos + next.leaseNanos) >= 0) {
            logger.debug("A hand-off of lock '" + hold.key() + "' arrived after the new lease ended; it lapses");
            queue.giveBack(next, true);
            queue.released(hold);
            return ScriptReplies.FREED;
        }
        ReplicaAcknowledgement acknowledgement = this.replicaAcknowledgement;
        if (acknowledgement != null) { // before the waiter hears: the WAIT on the hand-off's own connection
            long acknowledged = acknowledgement.await(hold.type().context.scripts());
            if (acknowledged < acknowledgement.replicas()) {
                // the releaser's hold ended; the waiter's grant is undone and it waits on with a new owner token
                queue.giveBack(next, true);
                new GrantFailures(this.failures, next.hold, holdId, next.watchdog)
                    .notReplicated(acknowledgement.shortfall(acknowledged), true);
                queue.released(hold);
                return ScriptReplies.FREED;
            }
        }
        RedisLockHandle granted = new RedisLockHandle(releases, next.hold, holdId, next.name, reply, sentNanos,
                next.watchdog, next.leaseNanos, true);
        next.hold.granted(granted, sentNanos, next.leaseNanos);
        next.hold.open();
        this.holds.add(next.hold);
        if (next.watchdog) {
            this.watchdog.watch(next.hold);
        }
        queue.handedOff(next.hold, atBound);
        next.handed(granted); // the hand-off is granted: the waiter, blocking or not, is woken with the lock
        Listeners.emit(this.listener, new LockEvent.HandedOff(handle, granted)); // after the waiter is on its way
        return ScriptReplies.FREED;
    }
}
