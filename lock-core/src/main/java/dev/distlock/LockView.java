package dev.distlock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A {@link Lock} view of one distributed lock, for code written against {@code java.util.concurrent.locks.Lock}
 * (such as code that used Redisson's {@code RLock}). Thread-safe; one view may be shared by every thread.
 *
 * <pre>{@code
 * Lock lock = LockView.of(lockService, "stock:42", LockOptions.defaults());
 * lock.lock();
 * try { ... } finally { lock.unlock(); }
 * }</pre>
 *
 * <p>The owner is the thread, as with {@link java.util.concurrent.locks.ReentrantLock}: the lock is reentrant per
 * thread, every {@code lock} needs its own {@code unlock} by the same thread, and {@link #unlock()} by a thread that
 * does not hold it throws {@link IllegalMonitorStateException}. Each {@code lock} is one acquisition of the
 * {@link LockService}, so a nested one also checks with Redis that the lease is still held. Two views of the same key
 * in one thread share the lock, as {@link LockService} reentrancy does.
 *
 * <p>The options choose the type of lock, the lease (the watchdog by default) and the name; their wait time is
 * ignored, since each method says how long it waits, and an owner is refused. {@link #fencingToken()} gives the
 * calling thread's fencing token, {@link #handle()} its {@link LockHandle}.
 *
 * <p>Failures are unchecked {@link LockException}s: {@link LockUnavailableException} from any method when Redis cannot
 * be reached, and {@link LeaseLostException} from {@link #unlock()} when the lease had been lost while held (the
 * thread no longer holds the lock then). If a lease is lost, the holding thread's next {@code lock} takes the lock
 * anew and forgets (and logs) its lost acquisitions.
 * {@link #newCondition()} is not supported.
 */
public final class LockView implements Lock {

    private static final Log logger = LogFactory.getLog(LockView.class);

    /** How long one wait of {@link #lock()} lasts before it starts over; it waits without limit. */
    private static final Duration WAIT_ROUND = Duration.ofMinutes(10);

    private final LockService locks;

    private final String key;

    private final LockOptions options;

    /** The acquisitions of each holding thread, the latest first. Only the owning thread touches its deque. */
    private final Map<Thread, Deque<LockHandle>> holders = new ConcurrentHashMap<>();

    private LockView(LockService locks, String key, LockOptions options) {
        this.locks = locks;
        this.key = key;
        this.options = options;
    }

    /**
     * A view of the lock of {@code key}, taken from {@code locks} with {@code options}. Nothing is written to Redis
     * until the first {@code lock}.
     *
     * @throws IllegalArgumentException when an argument is null, or {@code options} name an owner (the owner of a
     * {@link Lock} is its thread)
     */
    public static LockView of(LockService locks, String key, LockOptions options) {
        if (locks == null || key == null || options == null) {
            throw new IllegalArgumentException("lockService, key and options must not be null");
        }
        if (options.owner() != null) {
            throw new IllegalArgumentException("options must not name an owner: the owner of a Lock view is the "
                    + "calling thread, but was " + options.owner());
        }
        return new LockView(locks, key, options);
    }

    /** The lock's key. */
    public String key() {
        return this.key;
    }

    /**
     * Waits for the lock without limit, ignoring interrupts (the interrupt flag is set again on return).
     *
     * @throws LockUnavailableException when Redis cannot be reached
     */
    @Override
    public void lock() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    held(this.locks.acquire(this.key, this.options.withWaitTime(WAIT_ROUND)));
                    return;
                }
                catch (LockTimeoutException ex) {
                    // wait another round
                }
                catch (LockInterruptedException ex) {
                    interrupted |= Thread.interrupted();
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits for the lock without limit, unless the thread is interrupted.
     *
     * @throws InterruptedException when the thread is interrupted, before or while waiting (its flag is cleared)
     * @throws LockUnavailableException when Redis cannot be reached
     */
    @Override
    public void lockInterruptibly() throws InterruptedException {
        while (!tryLock(WAIT_ROUND.toNanos(), TimeUnit.NANOSECONDS)) {
            // wait another round
        }
    }

    /**
     * Makes one attempt, without waiting.
     *
     * @return whether the calling thread holds the lock now
     * @throws LockUnavailableException when Redis cannot be reached
     */
    @Override
    public boolean tryLock() {
        Optional<LockHandle> handle = this.locks.tryAcquire(this.key, this.options);
        handle.ifPresent(this::held);
        return handle.isPresent();
    }

    /**
     * Waits up to {@code time} for the lock; zero or less means one attempt.
     *
     * @return whether the calling thread holds the lock now
     * @throws InterruptedException when the thread is interrupted, before or while waiting (its flag is cleared)
     * @throws LockUnavailableException when Redis cannot be reached
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted before waiting for lock " + KeyText.quote(this.key));
        }
        if (time <= 0) {
            return tryLock();
        }
        try {
            held(this.locks.acquire(this.key, this.options.withWaitTime(Duration.ofNanos(unit.toNanos(time)))));
            return true;
        }
        catch (LockTimeoutException ex) {
            return false;
        }
        catch (LockInterruptedException ex) {
            Thread.interrupted();
            InterruptedException interrupt = new InterruptedException(ex.getMessage());
            interrupt.initCause(ex);
            throw interrupt;
        }
    }

    /**
     * Releases the calling thread's latest acquisition; the lock is freed with its last.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws LeaseLostException when the lease had been lost, so the work may have overlapped another holder
     * @throws LockUnavailableException when Redis could not be reached (the lock expires at the end of its lease)
     */
    @Override
    public void unlock() {
        Thread thread = Thread.currentThread();
        Deque<LockHandle> handles = this.holders.get(thread);
        if (handles == null) {
            throw new IllegalMonitorStateException("Lock " + KeyText.quote(this.key) + " is not held by thread "
                    + thread.getName());
        }
        LockHandle latest = handles.pop();
        if (handles.isEmpty()) {
            this.holders.remove(thread);
        }
        latest.release();
    }

    /** Not supported: a distributed lock has no condition variables. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("A distributed lock does not support conditions");
    }

    /** Whether the calling thread holds the lock and its lease, as far as this process knows. */
    public boolean isHeldByCurrentThread() {
        return handle().map(LockHandle::isHeld).orElse(false);
    }

    /** Whether some thread of this process holds the lock through this view. */
    public boolean isLocked() {
        return !this.holders.isEmpty();
    }

    /** The calling thread's latest acquisition, or empty when it does not hold the lock. */
    public Optional<LockHandle> handle() {
        Deque<LockHandle> handles = this.holders.get(Thread.currentThread());
        return (handles == null) ? Optional.empty() : Optional.ofNullable(handles.peek());
    }

    /**
     * The calling thread's fencing token: see {@link LockHandle#fencingToken()}.
     *
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     */
    public long fencingToken() {
        return handle().orElseThrow(() -> new IllegalMonitorStateException(
                "Lock " + KeyText.quote(this.key) + " is not held by thread " + Thread.currentThread().getName()))
            .fencingToken();
    }

    /**
     * Records a granted acquisition. A new fencing token means a new grant rather than a re-entry: the thread's
     * earlier acquisitions lost their lease, so they are forgotten.
     */
    private void held(LockHandle handle) {
        Deque<LockHandle> handles = this.holders.computeIfAbsent(Thread.currentThread(), thread -> new ArrayDeque<>());
        LockHandle latest = handles.peek();
        if (latest != null && latest.fencingToken() != handle.fencingToken()) {
            logger.warn("Lock " + KeyText.quote(this.key) + ": the lease of thread " + Thread.currentThread().getName()
                    + "'s earlier acquisitions (fencing token " + latest.fencingToken() + ") was lost; the lock was "
                    + "taken anew (fencing token " + handle.fencingToken() + ") and they are forgotten");
            for (LockHandle lost : handles) {
                try {
                    lost.release(); // ends their local state; Redis no longer has them
                }
                catch (LockException ex) {
                    // the loss is what this reports
                }
            }
            handles.clear();
        }
        handles.push(handle);
    }

    @Override
    public String toString() {
        return "LockView[key=" + this.key + ", heldByCurrentThread=" + isHeldByCurrentThread() + "]";
    }
}
