package dev.distlock.shedlock;

import java.util.Optional;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock lock whose {@code lockAtMostFor} had already run out when Redis's grant arrived: as with ShedLock's own
 * providers, the job runs, its lease already over (reported once by {@link LeaseReport}). distlock undid the grant,
 * so there is nothing to unlock and nothing to extend.
 */
final class ExpiredSimpleLock extends AbstractSimpleLock {

    ExpiredSimpleLock(LockConfiguration configuration) {
        super(configuration);
    }

    @Override
    protected void doUnlock() {
    }

    @Override
    protected Optional<SimpleLock> doExtend(LockConfiguration configuration) {
        return Optional.empty();
    }
}
