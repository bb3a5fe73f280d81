package dev.distlock;

import java.time.Instant;

/**
 * What one lock held by this process looked like when {@link LockInspection#heldLocks()} was called: one per owner
 * and key and type, however many reentrant acquisitions the owner has open. Immutable; it does not change when the
 * lock does. It carries no owner token, so showing it gives nobody the means to release or renew the lock.
 *
 * @param key the lock's key, as the caller gave it (it may hold user ids: show it only to operators)
 * @param name the low-cardinality name of the owner's first acquisition (see {@link LockOptions#withName(String)})
 * @param mode the type of lock
 * @param since when the owner acquired it, on this machine's clock
 * @param leaseDeadline when the lease runs out unless renewed, estimated on this machine's clock
 * @param fencingToken the fencing token of the grant
 * @param owner who holds it: {@code "thread <name>"} when the owner is a thread (the default), otherwise the owner
 * object's {@code toString()} (see {@link LockOptions#withOwner(Object)})
 * @param holdCount the owner's open acquisitions of the lock: more than 1 when it re-entered the lock
 * @param watchdog whether the watchdog renews the lease ({@code false} for a fixed lease)
 */
public record HeldLock(String key, String name, LockMode mode, Instant since, Instant leaseDeadline,
        long fencingToken, String owner, int holdCount, boolean watchdog) {
}
