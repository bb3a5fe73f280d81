package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;

import dev.distlock.KeyText;
import dev.distlock.LeaseExpiredOnArrivalException;
import dev.distlock.LockException;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseHolder;
import dev.distlock.redis.script.ScriptReplies;
import dev.distlock.redis.script.LockType;

/**
 * What happens to one grant that failed after Redis may have run it: the grant is undone, so that no lock outlives
 * the failure, and the caller gets the error that says what went wrong.
 */
final class GrantFailures {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    /**
     * What undoing a grant uses: the holds (for the warning's line), the clean-up thread, and what a lock this service
     * freed tells its queue and waiters.
     */
    record Parts(Holds holds, Executor cleanUp, Consumer<Hold> freed) {
    }

    private final Parts parts;

    private final Hold hold;

    private final String holdId;

    private final boolean watchdog;

    GrantFailures(Parts parts, Hold hold, String holdId, boolean watchdog) {
        this.parts = parts;
        this.hold = hold;
        this.holdId = holdId;
        this.watchdog = watchdog;
    }

    /**
     * After a timeout, or an interrupt while the client awaited the reply, the script may have run: the acquisition is
     * undone; so is one Redis refused for lack of permission. A refused connection never reached Redis, so it needs no
     * undo. An interrupt is reported as such, with the thread's flag left set.
     */
    LockException failed(DataAccessException cause) {
        LockException otherLayout = LayoutRefusal.during("acquiring", this.hold.key(), cause);
        if (otherLayout != null) {
            return otherLayout; // refused before any write: nothing to undo
        }
        LockException refused = PermissionRefusals.during("acquiring", this.hold.key(), cause);
        if (refused != null) {
            // Redis answered. With the ACL guard the script refused before writing; without it (a user granted
            // everything, see LockScripts#decideAclGuard) it may have stopped half-way: undone, which a guarded
            // release either does whole or refuses whole.
            undoLater();
            return refused;
        }
        boolean interrupted = Thread.currentThread().isInterrupted();
        if (interrupted || cause instanceof QueryTimeoutException) {
            undoLater();
        }
        if (interrupted) {
            InterruptedException interrupt = new InterruptedException("interrupted during a Redis call");
            interrupt.initCause(cause);
            return new LockInterruptedException(this.hold.key(), interrupt);
        }
        return new LockUnavailableException(this.hold.key(),
                "Redis could not be reached or did not answer while acquiring lock "
                        + KeyText.quote(this.hold.key()), cause);
    }

    /**
     * Redis granted the lock, but its reply came after the lease had run out (a cold connection, a stalled Redis): the
     * lock may be someone else's by now, so the grant is undone.
     */
    LeaseExpiredOnArrivalException expiredOnArrival(Duration replyTime, long leaseNanos) {
        undoLater();
        return new LeaseExpiredOnArrivalException(this.hold.key(), "Redis granted lock "
                + KeyText.quote(this.hold.key()) + " but its reply took " + replyTime.toMillis()
                + " ms, longer than the lease of " + Duration.ofNanos(leaseNanos).toMillis() + " ms: the "
                + "grant was undone, since the lock may already belong to someone else");
    }

    /**
     * Too few replicas confirmed a grant: undone, since a failover could hand it on; before the caller hears when
     * {@code undoNow}, else off this thread (a Redis client thread must not wait for Redis).
     */
    LockUnavailableException notReplicated(String shortfall, boolean undoNow) {
        LockUnavailableException failure = new LockUnavailableException(this.hold.key(),
                "Lock " + KeyText.quote(this.hold.key()) + " was granted but " + shortfall
                        + "; the acquisition was undone");
        if (!undoNow) {
            undoLater();
        }
        else {
            try { // Redis answers (WAIT did)
                undo();
            }
            catch (DataAccessException undoFailure) {
                failure.addSuppressed(undoFailure);
            }
        }
        LeaseHolder first = this.hold.firstHandle();
        logger.warn(this.parts.holds().logLine(failure, (first != null) ? first.name() : null));
        return failure;
    }

    /**
     * A hand-off to this grant failed on every try, the last outcome unknown: the waiter may hold the lock under the
     * owner token it gives up. Undone as a failed grant is, rather than left to run out its lease.
     */
    void handOffFailed() {
        undoLater();
    }

    /**
     * Releases the acquisition off the caller's path: the caller learns of the failure at once, not after another
     * command timeout. A grant the undo misses expires with its lease.
     */
    private void undoLater() {
        this.parts.cleanUp().execute(() -> {
            try {
                undo();
            }
            catch (DataAccessException undoFailure) {
                logger.debug("Could not undo an acquisition of lock " + KeyText.quote(this.hold.key())
                        + "; it expires with its "
                        + "lease", undoFailure);
            }
        });
    }

    /** Releases the grant; when that frees the lock, this service's waiters hear of it as after any release. */
    private void undo() {
        long reply = this.hold.type().release(this.hold, new LockType.Release(this.holdId, 0, this.watchdog, 0));
        if (reply == ScriptReplies.FREED) {
            this.parts.freed().accept(this.hold);
        }
    }
}
