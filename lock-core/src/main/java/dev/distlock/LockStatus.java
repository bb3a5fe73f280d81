package dev.distlock;

import java.util.List;

/**
 * One key's lock of one type as Redis has it now, read by {@link LockInspection#inspect(String)}: who holds it and
 * who waits, whichever service instance took it. A snapshot; it carries no owner token, so showing it gives nobody the
 * means to release or renew the lock. The key may hold user ids: show it only to operators.
 *
 * @param key the lock's key
 * @param mode the type of lock: {@link LockMode#EXCLUSIVE}, {@link LockMode#FAIR}, {@link LockMode#READ} (the
 * readers of a read/write lock), {@link LockMode#WRITE} (its writer, or a writer waiting), or
 * {@link LockMode#SEMAPHORE} for either kind of semaphore (its fairness and limit are not stored)
 * @param holders who holds it, oldest grant first: one for a lock, several for readers and semaphore holders (at
 * most 100 shown); empty when only waiters are recorded
 * @param waiters the instances of the waiters Redis names, in order: a fair lock's or semaphore's queue, the write
 * lock's waiting writer. Waiters for an exclusive lock queue in their own processes and are not named (see
 * {@code othersWaiting})
 * @param othersWaiting whether a caller was refused and waits, as the holder's release will tell: what an exclusive
 * lock and a semaphore record instead of names
 */
public record LockStatus(String key, LockMode mode, List<LockHolder> holders, List<LockInstance> waiters,
        boolean othersWaiting) {

    public LockStatus {
        holders = List.copyOf(holders);
        waiters = List.copyOf(waiters);
    }
}
