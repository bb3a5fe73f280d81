package dev.distlock.shedlock;

import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.LockUnavailableException;
import dev.distlock.RestartGraceException;

/**
 * Logs a provider's outages as a scheduler user expects: one WARN when Redis first cannot give a lock (unreachable,
 * or refusing new locks for its restart grace), nothing for the skipped runs after it, and one INFO when a lock
 * attempt gets an answer again.
 */
final class OutageReport {

    private static final Logger logger = LoggerFactory.getLogger(DistributedLockProvider.class);

    private final AtomicBoolean inOutage = new AtomicBoolean();

    void failed(String lockName, LockUnavailableException reason) {
        if (this.inOutage.compareAndSet(false, true)) {
            String what = (reason instanceof RestartGraceException) ? "Redis refuses new locks for its restart grace"
                    : "Redis cannot be reached";
            logger.warn("ShedLock lock '{}' not taken: {}, so scheduled jobs are skipped until it answers (logged "
                    + "once per outage): {}", lockName, what, reason.getMessage());
        }
    }

    void answered() {
        if (this.inOutage.get() && this.inOutage.compareAndSet(true, false)) {
            logger.info("ShedLock locks are taken again: Redis answers.");
        }
    }
}
