package dev.distlock.redis.lease;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;

/** One acquisition under a {@link Hold}: what its lease asked for, and where a loss is reported. */
public interface LeaseHolder extends LockHandle {

    /** Whether the watchdog renews this acquisition's lease. */
    boolean renewedByWatchdog();

    /** For a fixed lease, when it ends on {@link System#nanoTime()}, measured from before the Redis call. */
    long fixedDeadlineNanos();

    /** Tells the acquisition's lease-lost callbacks, unless it was released. */
    void leaseLost(LeaseLostException reason);
}
