package dev.distlock.redis.lease;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandExecutionException;

import dev.distlock.KeyText;

/** The reasons the watchdog gives when it reports a lease lost: what the renewal's timing shows, and no more. */
final class LossReasons {

    private LossReasons() {
    }

    /**
     * Why the watchdog could not renew {@code hold}, from what the timing shows: a semaphore's permits are nobody
     * else's to take; a renewal answered before the lease's deadline (which Redis's expiry never precedes) found the
     * lock gone while its lease still ran in Redis, so it was deleted, or Redis lost it; a renewal sent after the
     * deadline came too late; one sent before and answered after it may have reached Redis after the lease ran out.
     */
    static String notHeld(Hold hold, long sentNanos, long answeredNanos) {
        if (hold.holdKey().mode().isSemaphore()) {
            return "The permits of semaphore " + KeyText.quote(hold.key()) + " were lost while held (their holder "
                    + "entry was deleted or had run out in Redis); the watchdog could not renew them";
        }
        long deadline = hold.deadlineNanos();
        String cause;
        if (answeredNanos - deadline < 0) {
            cause = " was gone from Redis before its lease could have run out (deleted or taken by another owner "
                    + "while held): Redis most likely restarted without its data or failed over to a replica that had "
                    + "not received it";
        }
        else if (sentNanos - deadline >= 0) {
            cause = "'s lease ran out before the watchdog sent its renewal, " + millis(sentNanos - deadline)
                    + " ms late: this process was paused or starved of CPU (or the lock was deleted or taken by "
                    + "another owner)";
        }
        else {
            cause = " was not held any more when the renewal reached Redis: the renewal was sent "
                    + millis(deadline - sentNanos) + " ms before the lease's end and answered after it, "
                    + millis(answeredNanos - deadline) + " ms late, so the lease may have run out before it arrived "
                    + "(a slow connection or a paused Redis), or the lock was deleted or taken by another owner";
        }
        return "Lock " + KeyText.quote(hold.key()) + cause + "; the watchdog could not renew it";
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /**
     * A hold whose renewals failed until its deadline passed: Redis did not answer, or it answered with an error (an
     * ACL refusal, say), which the reason quotes rather than calling Redis unreachable.
     */
    static String renewalsFailed(Hold hold, Throwable cause) {
        String lease = hold.holdKey().mode().isSemaphore()
                ? "The lease of the permits of semaphore " + KeyText.quote(hold.key())
                : "The lease of lock " + KeyText.quote(hold.key());
        for (Throwable error = cause; error != null; error = error.getCause()) {
            if (error instanceof RedisCommandExecutionException) {
                return lease + " ran out while Redis refused to renew it: " + error.getMessage();
            }
        }
        return lease + " ran out while Redis could not be reached to renew it";
    }
}
