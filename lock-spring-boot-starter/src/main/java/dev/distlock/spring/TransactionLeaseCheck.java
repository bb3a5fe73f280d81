package dev.distlock.spring;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;

/**
 * Makes sure a transaction that runs under a lock never commits after the lock's lease is lost. When a transaction
 * begins inside a {@link DistributedLock} call (the default advisor order puts the lock outside
 * {@code @Transactional}), it registers a synchronization that checks, just before the commit, that every lock of the
 * calls running on the thread is still held; if one is not, it throws a {@link LeaseLostException}, and the
 * transaction manager rolls the transaction back and rethrows it.
 *
 * <p>The check is local: the lease as this process knows it (see {@link LockHandle#isHeld()}), which costs no Redis
 * call. A pause between the check and the commit is not covered; pass the fencing token to the database for that.
 *
 * <p>Spring Boot adds {@link TransactionExecutionListener} beans to the transaction managers it auto-configures; add
 * it to your own with {@code addListener} or through Boot's {@code TransactionManagerCustomizers}. For locks taken with
 * {@link dev.distlock.LockService} directly, call {@link #register(LockHandle)} inside the transaction.
 */
public final class TransactionLeaseCheck implements TransactionExecutionListener {

    @Override
    public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
        if (beginFailure != null || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        List<LockHandle> locks = CurrentLock.all();
        if (!locks.isEmpty()) {
            TransactionSynchronizationManager.registerSynchronization(new BeforeCommitCheck(locks));
        }
    }

    /**
     * Checks before the commit of the current transaction that {@code lock} is still held, and rolls the transaction
     * back with a {@link LeaseLostException} if it is not. Does nothing outside a synchronized transaction.
     */
    public static void register(LockHandle lock) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new BeforeCommitCheck(List.of(lock)));
        }
    }

    /** Runs after the other before-commit work (its order is the lowest), as close to the commit as it can. */
    private record BeforeCommitCheck(List<LockHandle> locks) implements TransactionSynchronization {

        @Override
        public void beforeCommit(boolean readOnly) {
            for (LockHandle lock : this.locks) {
                if (!lock.isHeld()) {
                    throw new LeaseLostException(lock.key(), "The lease of lock '" + lock.key()
                            + "' ran out or was lost before the transaction committed (lease deadline "
                            + lock.leaseDeadline() + "); the transaction was rolled back, since another owner may "
                            + "hold the lock");
                }
            }
        }
    }
}
