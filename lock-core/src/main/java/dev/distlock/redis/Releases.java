package dev.distlock.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LockException;
import dev.distlock.LeaseLostException;
import dev.distlock.LockListener;
import dev.distlock.LockUnavailableException;
import dev.distlock.NotLockOwnerException;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.redis.script.LockScripts;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;

/** Releases acquisitions: the script call with its retries, the local wake-up, and what the reply says. */
final class Releases implements RedisLockHandle.Releaser {

    private static final Log logger = LogFactory.getLog(RedisLockService.class); // logged as the service

    /** Tries of one release: the retry window a freed lock's hash must outlive (see TokenRetention). */
    static final int RELEASE_ATTEMPTS = 3;

    private final Holds holds;

    private final LeaseWatchdog watchdog;

    private final ReleaseSubscriptions subscriptions;

    private final LockListener listener;

    private final LocalQueues queues;

    private final HandOffs handOffs;

    Releases(Holds holds, LeaseWatchdog watchdog, ReleaseSubscriptions subscriptions, LockListener listener,
            LocalQueues queues, HandOffs handOffs) {
        this.queues = queues;
        this.handOffs = handOffs;
        this.holds = holds;
        this.watchdog = watchdog;
        this.subscriptions = subscriptions;
        this.listener = listener;
    }

    /**
     * Releases one acquisition; {@code keepHeldMillis} > 0 leaves the lock held that much longer. Goes through on an
     * interrupted thread too, whose flag stays set.
     */
    @Override
    public void release(RedisLockHandle handle, long keepHeldMillis) {
        Hold hold = handle.hold;
        boolean renewedHandleRemains = hold.released(handle);
        boolean last = hold.close();
        if (last) {
            this.holds.forget(hold); // the owner's last acquisition: stop renewing before the lock is freed
        }
        else if (!renewedHandleRemains) {
            this.watchdog.unwatch(hold); // the remaining acquisitions have fixed leases
        }
        LockType.Release release = new LockType.Release(handle.holdId, handle.fencingToken(),
                handle.renewedByWatchdog(), Long.toString(keepHeldMillis));
        long reply;
        Long handedOff;
        try {
            handedOff = (last && keepHeldMillis == 0) ? this.handOffs.handOff(handle, release, this) : null;
            reply = (handedOff != null) ? handedOff : withRetries(() -> hold.type().release(hold, release));
        }
        catch (DataAccessException ex) {
            this.queues.released(hold);
            LockException refused = PermissionRefusals.during("releasing", hold.key(), ex);
            LockException failure = (refused != null) ? refused
                    : new LockUnavailableException(hold.key(), "Could not release lock "
                    + KeyText.quote(hold.key())
                    + ": Redis did not answer; the lock stays until its lease runs out", ex);
            logger.warn(this.holds.logLine(failure, handle.name()), ex);
            Listeners.call(() -> this.listener.releaseFailed(handle, failure));
            throw failure;
        }
        if (last) {
            this.queues.released(hold); // after a hand-off, the queue names the new holder already
        }
        // An earlier try may have freed the lock with its reply lost: this service drops its own release messages
        if ((reply == LockScripts.FREED || reply == LockScripts.ALREADY_RELEASED) && keepHeldMillis == 0
                && (handedOff == null || handedOff != LockScripts.FREED)) { // a hand-off left nothing to wake
            this.subscriptions.signalLocal(hold.releaseChannel());
        }
        if (reply >= 0) {
            Listeners.call(() -> this.listener.released(handle, AbstractLockService.since(handle.acquiredNanos)));
            return;
        }
        LeaseLostException lost = (reply == LockScripts.HELD_BY_ANOTHER)
                ? new NotLockOwnerException(hold.key(), "Lock " + KeyText.quote(hold.key())
                        + " is held by another owner: this "
                        + "holder's lease (fencing token " + handle.fencingToken() + ") was lost before release")
                : new LeaseLostException(hold.key(), "Lock " + KeyText.quote(hold.key())
                        + " was no longer held at release: its lease ran out before the holder released it");
        this.holds.lose(hold, lost);
        Listeners.call(() -> this.listener.releaseFailed(handle, lost));
        throw lost;
    }

    /**
     * Runs a release script, retrying a failed call. The Redis client refuses to wait for a reply on an interrupted
     * thread, so the interrupt flag is cleared before each try and set again at the end if it was set at any time.
     */
    static long withRetries(LongSupplier script) {
        boolean interrupted = false;
        try {
            for (int attempt = 1;; attempt++) {
                interrupted |= Thread.interrupted();
                try {
                    return script.getAsLong();
                }
                catch (DataAccessException ex) {
                    // A retry is safe: the script recognises a hold it released already and never touches another's.
                    if (attempt == RELEASE_ATTEMPTS) {
                        throw ex;
                    }
                    interrupted |= sleepThroughInterrupts(TimeUnit.MILLISECONDS.toNanos(50L * attempt));
                }
            }
        }
        finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Sleeps the whole time even when interrupted; returns whether it was, with the flag cleared. */
    private static boolean sleepThroughInterrupts(long nanos) {
        long deadline = System.nanoTime() + nanos;
        boolean interrupted = false;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            }
            catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        return interrupted;
    }
}
