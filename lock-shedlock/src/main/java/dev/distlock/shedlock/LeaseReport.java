package dev.distlock.shedlock;

import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.distlock.LeaseLostException;


/** Logs the loss of one ShedLock lock's lease once, across its extensions. */
final class LeaseReport {

    private static final Logger logger = LoggerFactory.getLogger(DistributedLockProvider.class);

    private final String lockName;

    private final AtomicBoolean reported = new AtomicBoolean();

    LeaseReport(String lockName) {
        this.lockName = lockName;
    }

    void lost(LeaseLostException reason) {
        if (this.reported.compareAndSet(false, true)) {
            logger.warn("ShedLock lock '{}' lost its lease before the job ended (lockAtMostFor too short?), so the job "
                    + "may have run alongside another node's: {}", this.lockName, reason.getMessage());
        }
    }
}
