package dev.distlock;

/**
 * The type of lock an acquisition takes, chosen with {@link LockOptions#withMode(LockMode)}. Each type is a separate
 * lock in Redis: an {@code EXCLUSIVE} lock, a {@code READ}/{@code WRITE} lock, a {@code FAIR} lock and a semaphore of
 * the same key do not exclude each other, so use one type per key. Every type renews its lease with the watchdog,
 * reports a lost lease and hands out fencing tokens; the locks are reentrant per owner, a semaphore's permits are not.
 */
public enum LockMode {

    /** One owner at a time; waiters in any order (the default). */
    EXCLUSIVE,

    /**
     * The shared side of a read/write lock: many readers at once, none while a writer holds the lock or waits for it
     * (so that readers cannot starve a writer). Each reader's lease is its own and expires on its own. The write
     * holder may also take the read lock; it keeps it after releasing the write lock.
     */
    READ,

    /**
     * The exclusive side of a read/write lock: one writer, and no reader but the writer itself. A waiting writer
     * holds back new readers while it waits (for at most the service's waiter lease after it dies). A read lock is
     * never upgraded: an owner holding the read lock that asks for the write lock gets {@link IllegalStateException}
     * at the call, since two readers upgrading at once would wait for each other until their wait limits end.
     */
    WRITE,

    /**
     * One owner at a time, granted in the order the waiters reached Redis, across processes. A waiter that gives up
     * leaves the queue; one that dies without leaving holds up the waiters behind it for at most the service's
     * waiter lease. A {@code tryAcquire} succeeds only when nobody is queued.
     */
    FAIR,

    /**
     * A permit semaphore: up to a limit of permits held at once, set with {@link LockOptions#withPermits(int)} (which
     * also chooses this mode). Each acquisition takes its own permits, with a lease, a fencing token and a loss report
     * of its own; it is never reentrant, so an owner ({@link LockOptions#withOwner}) does not apply. Waiters are
     * served in any order. See {@link LockOptions#withPermits(int, int)}.
     */
    SEMAPHORE,

    /**
     * A {@link #SEMAPHORE} whose waiters are served in the order they reached Redis, across processes: a waiter that
     * asks for more permits than are free holds back the ones behind it. A waiter that dies without leaving holds up
     * the waiters behind it for at most the service's waiter lease. A {@code tryAcquire} succeeds only when nobody is
     * queued. Chosen with {@code withMode(FAIR).withPermits(limit)} or {@code withMode(FAIR_SEMAPHORE)}.
     */
    FAIR_SEMAPHORE;

    /** Whether this mode is a permit semaphore ({@link #SEMAPHORE} or {@link #FAIR_SEMAPHORE}). */
    public boolean isSemaphore() {
        return this == SEMAPHORE || this == FAIR_SEMAPHORE;
    }
}
