package dev.distlock.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.memory.MemoryHold.Owner;

/**
 * One lock in the store, as one lock hash in Redis: its holds and its waiters in arrival order, and the rules of its
 * type for who may be granted it. Each type is a lock of its own: an exclusive, a read/write and a fair lock and a
 * semaphore of one key do not exclude each other; a plain and a fair semaphore of one key are one semaphore. Guarded by
 * the store's monitor.
 */
final class LockState {

    final Id id;

    final List<MemoryHold> holds = new ArrayList<>();

    final List<Waiter> waiters = new ArrayList<>();

    /**
     * Holds whose lease ran out unnoticed by their owner: kept until the owner calls again for the lock, which tells it
     * of the loss then, as the Redis service tells it at a re-entry, or releases them. A lease that runs out is no
     * loss the Redis service reports by itself: no watchdog watches a fixed lease, nor a closed service's.
     */
    final List<MemoryHold> ranOut = new ArrayList<>();

    /** When a re-check for the waiters is scheduled (a lease running out frees the lock), or 0. */
    long recheckNanos;

    LockState(Id id) {
        this.id = id;
    }

    /** The owner's valid hold of this type, to re-enter; null when it has none. */
    @Nullable MemoryHold holdOf(Owner owner, LockMode mode) {
        for (MemoryHold hold : this.holds) {
            if (hold.mode == mode && hold.owner.equals(owner) && hold.lostReason() == null) {
                return hold;
            }
        }
        return null;
    }

    /**
     * Whether the type's rules grant a new hold to {@code waiter} now, with {@code ahead} still waiting before it.
     * Exclusive and fair: nobody holds it (fair: and nobody waits ahead). Write: nobody but the owner itself holds the
     * read lock. Read: no other owner holds the write lock or waits for it ahead, so readers cannot starve a writer.
     * Semaphore: the permits in use and those asked for stay within the limit the call names (fair: and no fair waiter
     * is ahead, as a plain waiter keeps no place in the queue).
     */
    boolean admits(Waiter waiter, List<Waiter> ahead) {
        Owner owner = waiter.owner();
        return switch (waiter.mode()) {
            case EXCLUSIVE -> this.holds.isEmpty();
            case FAIR -> this.holds.isEmpty() && ahead.isEmpty();
            case WRITE -> this.holds.stream().allMatch(hold -> hold.owner.equals(owner));
            case READ -> this.holds.stream().noneMatch(hold -> hold.mode == LockMode.WRITE && !hold.owner.equals(owner))
                    && (holdOf(owner, LockMode.WRITE) != null || ahead.stream()
                        .noneMatch(other -> other.mode() == LockMode.WRITE && !other.owner().equals(owner)));
            case SEMAPHORE -> permitsInUse() + waiter.options.permits() <= waiter.options.permitLimit();
            case FAIR_SEMAPHORE -> permitsInUse() + waiter.options.permits() <= waiter.options.permitLimit()
                    && ahead.stream().noneMatch(other -> other.mode() == LockMode.FAIR_SEMAPHORE);
        };
    }

    /** A semaphore's permits held now, those kept by a delayed release included. */
    private int permitsInUse() {
        int inUse = 0;
        for (MemoryHold hold : this.holds) {
            inUse += hold.permits;
        }
        return inUse;
    }

    /** The owner token a new hold of {@code owner} gets: its write hold's for a read hold, as in Redis; else null. */
    @Nullable String sharedOwnerToken(Owner owner, LockMode mode) {
        MemoryHold write = (mode == LockMode.READ) ? holdOf(owner, LockMode.WRITE) : null;
        return (write != null) ? write.ownerToken : null;
    }

    /** Whether another owner holds the lock in a way that excludes {@code hold}'s owner (never for permits). */
    boolean heldAgainst(MemoryHold hold) {
        return !hold.mode.isSemaphore() && this.holds.stream().anyMatch(other -> !other.owner.equals(hold.owner)
                && !(other.mode == LockMode.READ && hold.mode == LockMode.READ));
    }

    /** Removes the holds whose lease ran out; those that were held are marked lost and kept in {@link #ranOut}. */
    void removeExpired(long nowNanos) {
        this.holds.removeIf(hold -> {
            if (!hold.expiredAt(nowNanos)) {
                return false;
            }
            if (!hold.isLingering() && hold.lostReason() == null) {
                hold.markLost(InMemoryLockStore.ranOut(this.id.key()));
                this.ranOut.add(hold);
            }
            return true;
        });
    }

    /** Takes the owner's hold of this type whose lease ran out, to tell it of the loss; null when there is none. */
    @Nullable MemoryHold takeRanOut(Owner owner, LockMode mode) {
        for (MemoryHold hold : this.ranOut) {
            if (hold.mode == mode && hold.owner.equals(owner)) {
                this.ranOut.remove(hold);
                return hold;
            }
        }
        return null;
    }

    /** Removes every hold, as when the lock is deleted from Redis; those that were held are added to {@code lost}. */
    void removeAll(LeaseLostException reason, List<MemoryHold> lost) {
        for (MemoryHold hold : this.holds) {
            if (!hold.isLingering() && hold.lostReason() == null) {
                hold.markLost(reason);
                lost.add(hold);
            }
        }
        this.holds.clear();
    }

    /**
     * A closed service's watchdog renews no more: its holds stay, and their watched leases end one watchdog lease
     * from {@code nowNanos}, as in Redis.
     */
    void stopRenewalOf(InMemoryLockBackend service, long nowNanos) {
        for (MemoryHold hold : this.holds) {
            if (hold.owner.service() == service && !hold.isLingering()) {
                hold.stopRenewal(nowNanos + service.watchdogLease().toNanos());
            }
        }
    }

    /** The earliest end of a lease that is not renewed, or {@link Long#MAX_VALUE}. */
    long nextExpiryNanos() {
        long earliest = Long.MAX_VALUE;
        for (MemoryHold hold : this.holds) {
            long deadline = hold.deadlineNanos();
            if (deadline != Long.MAX_VALUE && (earliest == Long.MAX_VALUE || deadline - earliest < 0)) {
                earliest = deadline;
            }
        }
        return earliest;
    }

    /** Whether an owner holds the lock at {@code nowNanos} (a lock left held by {@code releaseAfter} has none). */
    boolean isHeldAt(long nowNanos) {
        return this.holds.stream().anyMatch(hold -> !hold.isLingering() && !hold.expiredAt(nowNanos));
    }

    boolean isEmpty() {
        return this.holds.isEmpty() && this.waiters.isEmpty() && this.ranOut.isEmpty();
    }

    /** A lock's identity: its key and its type, where the read and write sides are one lock. */
    record Id(String key, LockMode type) {

        static Id of(String key, LockMode mode) {
            return new Id(key, switch (mode) {
                case READ -> LockMode.WRITE;
                case FAIR_SEMAPHORE -> LockMode.SEMAPHORE;
                default -> mode;
            });
        }
    }

    /** A pending acquisition; its future completes with the handle, or null when the wait ended. */
    static final class Waiter {

        private final Owner owner;

        private final LockMode mode;

        final String name;

        final LockOptions options;

        final CompletableFuture<@Nullable LockHandle> future;

        @Nullable ScheduledFuture<?> timeout;

        Waiter(Owner owner, String name, LockOptions options, CompletableFuture<@Nullable LockHandle> future) {
            this.owner = owner;
            this.mode = options.mode();
            this.name = name;
            this.options = options;
            this.future = future;
        }

        Owner owner() {
            return this.owner;
        }

        LockMode mode() {
            return this.mode;
        }

        /** Hands the handle to the waiting caller; releases it when the caller cancelled meanwhile. */
        static void deliver(CompletableFuture<@Nullable LockHandle> future, LockHandle handle) {
            if (!future.complete(handle)) {
                try {
                    handle.release();
                }
                catch (LockException ex) {
                    // nobody receives this handle, so nobody is owed its failure
                }
            }
        }
    }
}
