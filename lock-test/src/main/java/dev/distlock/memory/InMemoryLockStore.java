package dev.distlock.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.KeyText;
import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockStatus;
import dev.distlock.NotLockOwnerException;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.DaemonThreads;
import dev.distlock.memory.LockState.Id;
import dev.distlock.memory.LockState.Waiter;
import dev.distlock.memory.MemoryHold.Owner;

/**
 * The locks of one JVM, playing the part of Redis for {@link InMemoryLockService}s: services made on the same store
 * exclude each other as services of several processes on one Redis do. Thread-safe. Besides, a test can make a held
 * lock vanish with {@link #expire(String)}, to see how its code copes with a lost lease.
 */
public final class InMemoryLockStore {

    /** Ends waits and wakes waiters when a lease runs out: one daemon thread for every store of the JVM. */
    private static final ScheduledThreadPoolExecutor timer = timer();

    private final Map<Id, LockState> locks = new HashMap<>();

    private final MemoryTokens tokens = new MemoryTokens();

    private long grants;

    /** A new service on this store, with the defaults of {@link InMemoryLockService#builder()}. */
    public InMemoryLockService newService() {
        return InMemoryLockService.builder().store(this).build();
    }

    /**
     * Ends every hold of the key's locks and every permit of its semaphore at once, as if they vanished from Redis
     * (evicted, or lost in a restart or failover): the holders' {@link LockHandle#onLeaseLost} callbacks run on the
     * calling thread, their release throws {@link LeaseLostException}, a re-entry takes the lock anew with a new
     * fencing token, and waiters get it.
     */
    public void expire(String key) {
        List<Runnable> after = new ArrayList<>();
        LeaseLostException reason = new LeaseLostException(key,
                "Lock " + KeyText.quote(key) + " was deleted behind its holder's back (InMemoryLockStore.expire)");
        synchronized (this) {
            for (LockMode type : new LockMode[] { LockMode.EXCLUSIVE, LockMode.WRITE, LockMode.FAIR, LockMode.SEMAPHORE }) {
                LockState state = this.locks.get(new Id(key, type));
                if (state != null) {
                    List<MemoryHold> lost = new ArrayList<>();
                    state.removeAll(reason, lost);
                    reportLost(lost, after);
                    process(state, after);
                    dropIfEmpty(state);
                }
            }
        }
        runAll(after);
    }

    /** Whether any owner holds a lock of {@code key} (of any type) now. */
    public synchronized boolean isLocked(String key) {
        long now = System.nanoTime();
        return this.locks.values().stream().anyMatch(state -> state.id.key().equals(key) && state.isHeldAt(now));
    }

    /**
     * Grants the lock to {@code owner} at once, or queues the request for up to {@code waitNanos}: the future
     * completes with the handle, or with null when the wait ends first. Completing the future otherwise (a cancel)
     * withdraws the request; a handle that nobody can receive any more is released.
     */
    CompletableFuture<@Nullable LockHandle> acquire(Owner owner, String key, LockOptions options, String name,
            long waitNanos) {
        CompletableFuture<@Nullable LockHandle> result = new CompletableFuture<>();
        Waiter waiter = new Waiter(owner, name, options, result);
        List<Runnable> after = new ArrayList<>();
        LockState state;
        boolean upgrade;
        synchronized (this) {
            state = this.locks.computeIfAbsent(Id.of(key, options.mode()), LockState::new);
            removeExpired(state);
            MemoryHold missed = state.takeRanOut(owner, options.mode());
            if (missed != null) { // as the Redis service finds at a re-entry that the owner's lease ran out
                reportLost(List.of(missed), after);
            }
            upgrade = options.mode() == LockMode.WRITE && state.holdOf(owner, LockMode.READ) != null
                    && state.holdOf(owner, LockMode.WRITE) == null;
            MemoryLockHandle handle = upgrade ? null : grant(state, waiter, state.waiters);
            if (handle != null) {
                after.add(() -> Waiter.deliver(result, handle));
            }
            else if (waitNanos <= 0 || upgrade) {
                after.add(() -> result.complete(null));
            }
            else {
                state.waiters.add(waiter);
                waiter.timeout = timer.schedule(() -> endWait(state, waiter), waitNanos, TimeUnit.NANOSECONDS);
                scheduleRecheck(state);
            }
            dropIfEmpty(state);
        }
        runAll(after);
        if (upgrade) { // as the Redis service: a read lock is never upgraded
            throw AbstractLockService.readLockNotUpgraded(key);
        }
        result.whenComplete((handle, failure) -> endWait(state, waiter));
        return result;
    }

    /** Ends one acquisition, leaving the lock held {@code keepHeld} longer when it was the owner's last. */
    void release(MemoryLockHandle handle, Duration keepHeld) {
        List<Runnable> after = new ArrayList<>();
        MemoryHold hold = handle.hold;
        LockException failure = null;
        synchronized (this) {
            LockState state = this.locks.get(Id.of(handle.key(), hold.mode));
            if (state != null) {
                removeExpired(state);
            }
            boolean last = hold.remove(handle);
            if (last && state != null) {
                state.ranOut.remove(hold);
            }
            LeaseLostException lost = hold.lostReason();
            if (lost != null) {
                String text = "Lock " + KeyText.quote(handle.key());
                failure = (state != null && state.heldAgainst(hold))
                        ? new NotLockOwnerException(handle.key(), text + " is held by another owner: this lease was "
                                + "lost before the release (" + lost.getMessage() + ")")
                        : new LeaseLostException(handle.key(), text + ": the lease was lost before the release",
                                lost);
            }
            else if (last && state != null) {
                state.holds.remove(hold);
                if (!keepHeld.isZero()) {
                    state.holds.add(MemoryHold.lingering(hold, System.nanoTime() + keepHeld.toNanos()));
                }
                process(state, after);
            }
            if (state != null) {
                dropIfEmpty(state);
            }
        }
        runAll(after);
        InMemoryLockBackend service = hold.owner.service();
        if (failure != null) {
            LockException reported = failure;
            service.emit(new LockEvent.ReleaseFailed(handle, reported));
            throw failure;
        }
        Duration held = Duration.ofNanos(System.nanoTime() - handle.acquiredNanos);
        service.emit(new LockEvent.Released(handle, held));
    }

    /** The service's holds now, oldest first. */
    synchronized List<HeldLock> heldLocks(InMemoryLockBackend service) {
        long now = System.nanoTime();
        List<MemoryHold> holds = new ArrayList<>();
        this.locks.values().forEach(state -> state.holds.stream()
            .filter(hold -> hold.owner.service() == service).forEach(holds::add));
        holds.sort(Comparator.comparingLong(hold -> hold.sequence));
        List<HeldLock> held = new ArrayList<>(holds.size());
        for (MemoryHold hold : holds) {
            HeldLock snapshot = hold.snapshot(now);
            if (snapshot != null) {
                held.add(snapshot);
            }
        }
        return List.copyOf(held);
    }

    /** The key's locks as {@link InMemoryLockService#inspect} shows them (see {@link MemoryInspection}). */
    synchronized List<LockStatus> inspect(String key) {
        return MemoryInspection.of(key, type -> this.locks.get(new Id(key, type)));
    }

    /**
     * A service was closed, as a process that stops: its holds stay until their leases end (the watchdog's one lease
     * from now) or until their handles are released, and its waiting calls stop with {@link IllegalStateException}.
     */
    void closed(InMemoryLockBackend service) {
        List<Runnable> after = new ArrayList<>();
        synchronized (this) {
            long now = System.nanoTime();
            for (LockState state : new ArrayList<>(this.locks.values())) {
                state.stopRenewalOf(service, now);
                state.waiters.removeIf(waiter -> {
                    if (waiter.owner().service() == service) {
                        after.add(() -> waiter.future.completeExceptionally(new IllegalStateException(
                                "This LockService was closed while waiting for lock " + KeyText.quote(state.id.key()))));
                        return true;
                    }
                    return false;
                });
                process(state, after);
                dropIfEmpty(state);
            }
        }
        runAll(after);
    }

    /** Grants the waiters that the lock's rules admit now, in arrival order; schedules a re-check for the others. */
    private void process(LockState state, List<Runnable> after) {
        removeExpired(state);
        List<Waiter> ahead = new ArrayList<>();
        for (Iterator<Waiter> waiters = state.waiters.iterator(); waiters.hasNext();) {
            Waiter waiter = waiters.next();
            MemoryLockHandle handle = grant(state, waiter, ahead);
            if (handle == null) {
                ahead.add(waiter);
                continue;
            }
            waiters.remove();
            if (waiter.timeout != null) {
                waiter.timeout.cancel(false);
            }
            after.add(() -> Waiter.deliver(waiter.future, handle));
        }
        scheduleRecheck(state);
    }

    /** Re-enters the owner's hold, or grants a new one when the rules admit it; null when the lock is held. */
    private @Nullable MemoryLockHandle grant(LockState state, Waiter waiter, List<Waiter> ahead) {
        LockMode mode = waiter.mode();
        MemoryHold hold = state.holdOf(waiter.owner(), mode);
        if (hold == null) {
            if (!state.admits(waiter, ahead)) {
                return null;
            }
            String shared = state.sharedOwnerToken(waiter.owner(), mode);
            hold = new MemoryHold(waiter.owner(), mode, (shared != null) ? shared : MemoryTokens.newOwnerToken(),
                    mode.isSemaphore() ? waiter.options.permits() : 0, this.tokens.next(state.id), ++this.grants);
            state.holds.add(hold);
        }
        MemoryLockHandle handle = new MemoryLockHandle(this, hold, state.id.key(), waiter.name,
                waiter.options.leaseTime());
        hold.add(handle);
        return handle;
    }

    /** Wakes the waiters when the earliest lease that is not renewed runs out. */
    private void scheduleRecheck(LockState state) {
        long expiry = state.nextExpiryNanos();
        if (state.waiters.isEmpty() || expiry == Long.MAX_VALUE
                || (state.recheckNanos != 0 && state.recheckNanos - expiry <= 0)) {
            return;
        }
        state.recheckNanos = expiry;
        timer.schedule(() -> {
            List<Runnable> after = new ArrayList<>();
            synchronized (this) {
                if (state.recheckNanos == expiry) {
                    state.recheckNanos = 0;
                }
                process(state, after);
                dropIfEmpty(state);
            }
            runAll(after);
        }, Math.max(0, expiry - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** Ends a wait that is still queued (timed out, cancelled or closed); the lock's rules may admit others now. */
    private void endWait(LockState state, Waiter waiter) {
        List<Runnable> after = new ArrayList<>();
        synchronized (this) {
            if (!state.waiters.remove(waiter)) {
                return;
            }
            if (waiter.timeout != null) {
                waiter.timeout.cancel(false);
            }
            after.add(() -> waiter.future.complete(null));
            process(state, after);
            dropIfEmpty(state);
        }
        runAll(after);
    }

    private static void removeExpired(LockState state) {
        state.removeExpired(System.nanoTime());
    }

    private static void reportLost(List<MemoryHold> lost, List<Runnable> after) {
        for (MemoryHold hold : lost) {
            List<MemoryLockHandle> open = hold.handles(); // the handles of now, read in the monitor
            after.add(() -> hold.reportLost(open));
        }
    }

    private void dropIfEmpty(LockState state) {
        if (state.isEmpty()) {
            this.locks.remove(state.id, state);
        }
    }

    private static void runAll(List<Runnable> after) {
        after.forEach(Runnable::run);
    }

    static LeaseLostException ranOut(String key) {
        return new LeaseLostException(key, "The lease of lock " + KeyText.quote(key) + " ran out");
    }

    private static ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                DaemonThreads.named("distlock-in-memory-timer-"));
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
