package dev.distlock.redis;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LeaseExpiredOnArrivalException;
import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.RestartGraceException;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.Hold.HoldKey;
import dev.distlock.redis.lease.ReplicaAcknowledgement;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.script.RestartGrace;
import dev.distlock.redis.script.ScriptCall;

/**
 * What one call asks Redis for a lock and what each reply means, shared by the blocking {@link Acquisition} and the
 * non-blocking {@link AsyncAcquisition}, which differ only in how they drive their {@link WaitingCall}: the owner's
 * hold to re-enter, the new hold a grant creates, one grant at a time ({@link Grant}), and the place a waiting call
 * gives up.
 */
abstract class LockRequest {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    final CallParts parts;

    final String key;

    final String name;

    final LockType type;

    final HoldKey holdKey;

    /** Whether the caller waits when refused, keeping a place in Redis if the type has one. */
    final boolean waiting;

    final boolean watchdog;

    final long leaseNanos;

    /** No replica acknowledgement counted yet: {@link Grant#replied} waits for it, if the service asks for one. */
    static final long UNKNOWN = Long.MIN_VALUE;

    /** The new hold this call would create; its owner token is made once, not per attempt. */
    private @Nullable Hold fresh;

    /** From the last refusal: the holder's remaining lease, or -1 when unknown. */
    long holderRemainingMillis = -1;

    /** From the last refusal: how long the restart grace holds back new grants, or -1 when it did not. */
    long graceLeftMillis = -1;

    /** From the last refusal by the restart grace: when the grace ends (System.nanoTime). */
    long graceEndsNanos;

    LockRequest(CallParts parts, String key, LockOptions options, String name, boolean waiting, Object owner) {
        this.parts = parts;
        this.key = key;
        this.name = name;
        this.type = parts.types().get(options.mode()).forOptions(options);
        this.waiting = waiting;
        // a semaphore's permits are never reentrant: every call is a holder of its own
        this.holdKey = new HoldKey(options.mode().isSemaphore() ? new PermitHolder(owner) : owner, key,
                options.mode());
        if (options.mode() == LockMode.WRITE) {
            refuseUpgrade(parts.holds(), this.holdKey);
        }
        Duration lease = options.leaseTime();
        this.watchdog = (lease == null);
        this.leaseNanos = (lease == null) ? parts.watchdogLeaseNanos() : lease.toNanos();
    }

    /**
     * A read lock is never upgraded to the write lock: two readers upgrading at once would wait for each other until
     * their waits end. The write holder may read, and keeps reading after releasing the write lock (a downgrade).
     */
    private static void refuseUpgrade(Holds holds, HoldKey write) {
        Hold read = holds.get(new HoldKey(write.owner(), write.key(), LockMode.READ));
        Hold written = holds.get(write);
        if (read != null && !read.isOver() && (written == null || written.isOver())) {
            throw AbstractLockService.readLockNotUpgraded(write.key());
        }
    }

    /**
     * The owner's open hold to re-enter, or null to take a new one. A hold past its deadline is reported lost first,
     * so that it is never re-entered.
     */
    final @Nullable Hold reentryTarget() {
        Hold current = this.parts.holds().get(this.holdKey);
        if (current == null || current.isOver()) {
            return null;
        }
        if (!current.isValid()) {
            this.parts.holds().lose(current, new LeaseLostException(this.key, "The lease of lock "
                    + KeyText.quote(this.key) + " ran out before its owner acquired it again"));
            return null;
        }
        return current.open() ? current : null;
    }

    /**
     * A re-entry found the owner's hold gone in Redis: the hold is lost; the call takes a new one. When every other
     * acquisition of the hold was released meanwhile (another thread released the owner's last handle, and its release
     * reached Redis first), the owner freed the lock itself: nothing was lost.
     */
    final void reentryRefused(Hold current) {
        if (current.isOver()) {
            this.parts.holds().forget(current);
            return;
        }
        this.parts.holds().lose(current, new LeaseLostException(this.key, "Lock " + KeyText.quote(this.key)
                + " was no longer held by its owner when the owner acquired it again: the lease was lost meanwhile"));
    }

    /** Whether the owner's hold is open, so that this call re-enters rather than queues. */
    final boolean ownerHoldOpen() {
        Hold current = this.parts.holds().get(this.holdKey);
        return current != null && !current.isOver();
    }

    /** The restart grace's error, when the last refusal was the grace's; else null. */
    final @Nullable RestartGraceException graceRefusal() {
        return (this.graceLeftMillis >= 0)
                ? new RestartGraceException(this.key, Duration.ofMillis(this.graceLeftMillis)) : null;
    }

    /** Forgets the new hold, so that the next one gets a new owner token. */
    final void newOwnerToken() {
        this.fresh = null;
    }

    /**
     * The hold a new grant creates. Its owner token is made once per call, or, for a read lock, shared with the
     * owner's write hold, so that the write holder may read (and read on after releasing the write lock).
     */
    final Hold freshHold() {
        Hold hold = this.fresh;
        if (hold == null) {
            LockMode sharing = this.type.sharesOwnerTokenWith();
            Hold other = (sharing == null) ? null
                    : this.parts.holds().get(new HoldKey(this.holdKey.owner(), this.key, sharing));
            String ownerToken = (other != null && !other.isOver()) ? other.ownerToken()
                    : this.parts.ownerTokens().get();
            hold = new Hold(this.holdKey, this.type, this.type.releaseChannel(this.key), ownerToken);
            this.fresh = hold;
        }
        return hold;
    }

    /**
     * Gives up the place a waiting call kept in Redis. Best effort: a place that cannot be removed lapses by itself
     * within the waiter lease. A closed service writes nothing more, as if its process had died.
     */
    final void leave() {
        Hold hold = this.fresh;
        if (this.waiting && this.type.keepsPlace() && hold != null) {
            this.parts.leavePlace().accept(hold);
        }
    }

    /** Starts one grant of {@code hold}: a re-entry of the owner's open hold, or a new hold. */
    final Grant startGrant(Hold hold, boolean reentrant) {
        return new Grant(hold, reentrant);
    }

    /** One grant: the script call, and what its reply or failure means. */
    final class Grant {

        private final Hold hold;

        private final boolean reentrant;

        private final String holdId;

        private final long sentNanos = System.nanoTime();

        private final GrantFailures failures;

        Grant(Hold hold, boolean reentrant) {
            this.hold = hold;
            this.reentrant = reentrant;
            this.holdId = hold.nextHoldId();
            this.failures = new GrantFailures(LockRequest.this.parts.failures(), hold, this.holdId,
                    LockRequest.this.watchdog);
        }

        ScriptCall call() {
            return LockRequest.this.type.acquireCall(this.hold, new LockType.Grant(this.holdId,
                    LockRequest.this.leaseNanos, LockRequest.this.watchdog, this.reentrant, LockRequest.this.waiting));
        }

        /**
         * The call failed: Redis may have run it, so it is undone (see {@link GrantFailures}). When Redis did not
         * answer, this service's waiters for the key stop waiting behind its local queue
         * ({@link LocalQueue#unreachable()}).
         */
        LockException failed(DataAccessException cause) {
            closeReentry();
            LockException failure = this.failures.failed(cause);
            if (failure instanceof LockUnavailableException) {
                LockRequest.this.parts.queues().unreachable(LockRequest.this.key);
            }
            return failure;
        }

        /**
         * What the reply means: the new handle, registered with the holds and the watchdog; or null when refused
         * (a re-entry: when the owner's hold is gone in Redis), noting the holder's remaining lease or the grace.
         *
         * @throws LeaseExpiredOnArrivalException when a single attempt's reply came after its lease ended
         */
        @Nullable RedisLockHandle replied(long reply) {
            return replied(reply, UNKNOWN);
        }

        /**
         * {@link #replied(long)} with the replica acknowledgements already counted ({@link
         * ScriptCall#runAcknowledgedAsync}): a grant too few acknowledged is undone off the caller's thread (this may
         * be a Redis client thread) and fails with {@code LockUnavailableException}.
         */
        @Nullable RedisLockHandle replied(long reply, long acknowledgedAlready) {
            LockRequest request = LockRequest.this;
            CallParts parts = request.parts;
            parts.queues().answered(request.key);
            request.graceLeftMillis = RestartGrace.refused(reply) ? RestartGrace.leftMillis(reply) : -1;
            if (request.graceLeftMillis >= 0) {
                request.graceEndsNanos = System.nanoTime() + request.graceLeftMillis * 1_000_000;
            }
            if (reply <= 0) {
                request.holderRemainingMillis = (request.graceLeftMillis >= 0) ? request.graceLeftMillis : -reply - 1;
                closeReentry();
                return null;
            }
            long repliedNanos = System.nanoTime();
            if (repliedNanos - (this.sentNanos + request.leaseNanos) >= 0) {
                closeReentry();
                LeaseExpiredOnArrivalException late = this.failures
                    .expiredOnArrival(Duration.ofNanos(repliedNanos - this.sentNanos), request.leaseNanos);
                if (!request.waiting) {
                    throw late;
                }
                logger.debug(late.getMessage() + "; trying again");
                request.holderRemainingMillis = 0;
                return null;
            }
            ReplicaAcknowledgement acknowledgement = parts.replicaAcknowledgement();
            if (acknowledgement != null) {
                boolean counted = acknowledgedAlready != UNKNOWN;
                long acknowledged = counted ? acknowledgedAlready
                        : acknowledgement.await(request.type.context.scripts());
                if (acknowledged < acknowledgement.replicas()) {
                    closeReentry();
                    throw this.failures.notReplicated(acknowledgement.shortfall(acknowledged), !counted);
                }
            }
            RedisLockHandle handle = new RedisLockHandle(parts.releases(), this.hold, this.holdId, request.name, reply,
                    this.sentNanos, request.watchdog, request.leaseNanos, false);
            this.hold.granted(handle, this.sentNanos, request.leaseNanos);
            if (!this.reentrant) {
                this.hold.open();
                parts.holds().add(this.hold);
                if (request.type.handsOff()) { // whichever style took it, a blocking release hands it off
                    parts.queues().held(this.hold);
                }
            }
            if (request.watchdog) {
                parts.watchdog().watch(this.hold);
            }
            return handle;
        }

        /** A re-entry that was counted open before its Redis call but not granted: counts it closed again. */
        private void closeReentry() {
            if (this.reentrant && this.hold.close()) {
                LockRequest.this.parts.holds().forget(this.hold);
            }
        }
    }
}
