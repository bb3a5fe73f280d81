package dev.distlock.redis;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.springframework.dao.DataAccessException;

/** The retries of one release script call (a release or a hand-off), blocking, through interrupts. */
final class ReleaseRetries {

    /** Tries of one release: the retry window a freed lock's hash must outlive (see TokenRetention). */
    static final int ATTEMPTS = 3;

    /** The pause before a release's second try; the third waits twice as long. */
    static final long PAUSE_MILLIS = 50;

    private ReleaseRetries() {
    }

    /**
     * Runs a release script, retrying a failed call. A retry is safe, and its reply means what the first try's would:
     * a script whose earlier try freed the lock or handed it off recognises that by evidence of this very release
     * (the freed mark the freeing script left for the releasing acquisition, the run of grants since 'chain' in the
     * lock, a reader's or a permit holder's 'released' mark; see end-hold.lua), never by the time left on the lease:
     * a lease also ends by deletion, eviction, a restart without data or a failover, and the holder must hear of it.
     * The Redis client refuses to wait for a reply on an interrupted thread, so the interrupt flag is cleared before
     * each try and set again at the end if it was set at any time.
     */
    static long run(LongSupplier script) {
        boolean interrupted = false;
        try {
            for (int attempt = 1;; attempt++) {
                interrupted |= Thread.interrupted();
                try {
                    return script.getAsLong();
                }
                catch (DataAccessException ex) {
                    // A retry is safe: the script recognises a hold it released already and never touches another's.
                    if (attempt == ATTEMPTS) {
                        throw ex;
                    }
                    interrupted |= sleepThroughInterrupts(TimeUnit.MILLISECONDS.toNanos(PAUSE_MILLIS * attempt));
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
