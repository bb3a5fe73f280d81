package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;

import dev.distlock.KeyText;
import dev.distlock.LockException;
import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockUnavailableException;
import dev.distlock.NotLockOwnerException;
import dev.distlock.internal.Durations;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.redis.script.ScriptReplies;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.script.ScriptCall;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;

/** Releases acquisitions: the script call with its retries, the local wake-up, and what the reply says. */
final class Releases implements RedisLockHandle.Releaser {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    private final Holds holds;

    private final LeaseWatchdog watchdog;

    private final ReleaseSubscriptions subscriptions;

    private final LockEventListener listener;

    private final LocalQueues queues;

    private final HandOffs handOffs;

    /** The service's timer for non-blocking retries, started on first need. */
    private final Supplier<ScheduledExecutorService> timer;

    Releases(Holds holds, LeaseWatchdog watchdog, ReleaseSubscriptions subscriptions, LockEventListener listener,
            LocalQueues queues, HandOffs handOffs, Supplier<ScheduledExecutorService> timer) {
        this.timer = timer;
        this.queues = queues;
        this.handOffs = handOffs;
        this.holds = holds;
        this.watchdog = watchdog;
        this.subscriptions = subscriptions;
        this.listener = listener;
    }

    /**
     * Releases one acquisition; {@code keepHeldNanos} > 0 leaves the lock held that much longer. Goes through on an
     * interrupted thread too, whose flag stays set.
     */
    @Override
    public void release(RedisLockHandle handle, long keepHeldNanos) {
        Hold hold = handle.hold;
        boolean last = closeHold(handle);
        LockType.Release release = releaseOf(handle, keepHeldNanos);
        long reply;
        Long handedOff;
        try {
            handedOff = (last && keepHeldNanos == 0) ? this.handOffs.handOff(handle, release, this) : null;
            reply = (handedOff != null) ? handedOff
                    : ReleaseRetries.run(() -> hold.type().release(hold, release));
        }
        catch (DataAccessException ex) {
            throw failed(handle, ex);
        }
        replied(handle, last, keepHeldNanos, reply, handedOff);
    }

    /**
     * Releases one acquisition now without blocking: the script is sent, and sent again after a pause on the
     * service's timer when it fails, as {@link #release} retries. No hand-off: local waiters are woken instead.
     */
    @Override
    public CompletableFuture<Void> releaseAsync(RedisLockHandle handle) {
        boolean last = closeHold(handle);
        ScriptCall call = handle.hold.type().releaseCall(handle.hold, releaseOf(handle, 0));
        CompletableFuture<Void> done = new CompletableFuture<>();
        sendRelease(call, 1, handle, last, done);
        return done;
    }

    private void sendRelease(ScriptCall call, int attempt, RedisLockHandle handle, boolean last,
            CompletableFuture<Void> done) {
        call.runAsync().whenComplete((reply, failure) -> {
            try {
                if (failure == null) {
                    replied(handle, last, 0, reply, null); // a retry's answer reads as the first's (ReleaseRetries)
                    done.complete(null);
                }
                else if (attempt < ReleaseRetries.ATTEMPTS && failure instanceof DataAccessException) {
                    // safe, as for the blocking retry: the script recognises a hold it released already
                    Runnable retry = () -> sendRelease(call, attempt + 1, handle, last, done);
                    long pauseMillis = ReleaseRetries.PAUSE_MILLIS * attempt;
                    try {
                        this.timer.get().schedule(retry, pauseMillis, TimeUnit.MILLISECONDS);
                    }
                    catch (RejectedExecutionException closed) { // releasing goes on after close()
                        CompletableFuture.delayedExecutor(pauseMillis, TimeUnit.MILLISECONDS).execute(retry);
                    }
                }
                else {
                    throw (failure instanceof DataAccessException ex) ? failed(handle, ex) : failure;
                }
            }
            catch (Throwable ex) {
                done.completeExceptionally(ex);
            }
        });
    }

    /**
     * Ends the handle's acquisition in its hold, before Redis hears: the watchdog stops renewing what it no longer
     * needs to.
     *
     * @return whether it was the owner's last acquisition
     */
    private boolean closeHold(RedisLockHandle handle) {
        Hold hold = handle.hold;
        boolean renewedHandleRemains = hold.released(handle);
        boolean last = hold.close();
        if (last) {
            this.holds.forget(hold); // the owner's last acquisition: stop renewing before the lock is freed
        }
        else if (!renewedHandleRemains) {
            this.watchdog.unwatch(hold); // the remaining acquisitions have fixed leases
        }
        return last;
    }

    private static LockType.Release releaseOf(RedisLockHandle handle, long keepHeldNanos) {
        return new LockType.Release(handle.holdId, handle.fencingToken(), handle.renewedByWatchdog(), keepHeldNanos);
    }

    /** Redis could not be asked: reported, and the error to throw. */
    private LockException failed(RedisLockHandle handle, DataAccessException ex) {
        Hold hold = handle.hold;
        LockException refused = PermissionRefusals.during("releasing", hold.key(), ex);
        if (refused == null) {
            refused = LayoutRefusal.during("releasing", hold.key(), ex);
        }
        if (refused == null) { // what the local queue believes of the lock may be stale: its waiters ask Redis
            this.queues.unreachable(hold.key());
        }
        this.queues.released(hold);
        LockException failure = (refused != null) ? refused
                : new LockUnavailableException(hold.key(), "Could not release lock " + KeyText.quote(hold.key())
                        + ": Redis did not answer; the lock stays until its lease runs out", ex);
        logger.warn(this.holds.logLine(failure, handle.name()), ex);
        Listeners.emit(this.listener, new LockEvent.ReleaseFailed(handle, failure));
        return failure;
    }

    /**
     * What Redis answered: local waiters woken, the listener told.
     *
     * @throws LeaseLostException when the lease had been lost before the release
     */
    private void replied(RedisLockHandle handle, boolean last, long keepHeldNanos, long reply,
            @Nullable Long handedOff) {
        Hold hold = handle.hold;
        if (last) {
            this.queues.released(hold); // after a hand-off, the queue names the new holder already
        }
        // An earlier try may have freed the lock with its reply lost: this service drops its own release messages
        if ((reply == ScriptReplies.FREED || reply == ScriptReplies.ALREADY_RELEASED) && keepHeldNanos == 0
                && (handedOff == null || handedOff != ScriptReplies.FREED)) { // a hand-off left nothing to wake
            this.subscriptions.signalLocal(hold.releaseChannel(), hold.type().releaseWakes());
        }
        if (reply >= 0) {
            Listeners.emit(this.listener,
                    new LockEvent.Released(handle, Durations.since(handle.acquiredNanos)));
            return;
        }
        LeaseLostException lost = (reply == ScriptReplies.HELD_BY_ANOTHER)
                ? new NotLockOwnerException(hold.key(), "Lock " + KeyText.quote(hold.key())
                        + " is held by another owner: this "
                        + "holder's lease (fencing token " + handle.fencingToken() + ") was lost before release")
                : Holds.goneAtRelease(hold);
        this.holds.lose(hold, lost);
        Listeners.emit(this.listener, new LockEvent.ReleaseFailed(handle, lost));
        throw lost;
    }
}
