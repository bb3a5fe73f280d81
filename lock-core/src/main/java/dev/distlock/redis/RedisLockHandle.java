package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;

/** One acquisition: a hold id within its owner's {@link Hold}. */
final class RedisLockHandle implements LockHandle {

    final Hold hold;

    final String holdId;

    final long acquiredNanos;

    /** Whether the watchdog renews this acquisition's lease. */
    final boolean watchdog;

    /** For a fixed lease, when it ends on {@link System#nanoTime()}, measured from before the Redis call. */
    final long fixedDeadlineNanos;

    /** Run when the hold's lease is lost while this handle is unreleased; dropped at its release. */
    final LostCallbacks lostCallbacks = new LostCallbacks();

    private final long fencingToken;

    private final String name;

    private final RedisLockService service;

    private final AtomicBoolean released = new AtomicBoolean();

    /** The loss, when the lease was known lost before the release: owed to callbacks added afterwards. */
    private volatile @Nullable LeaseLostException lostWhileHeld;

    RedisLockHandle(RedisLockService service, Hold hold, String holdId, String name, long fencingToken,
            long acquiredNanos, boolean watchdog, long leaseNanos) {
        this.service = service;
        this.hold = hold;
        this.holdId = holdId;
        this.name = name;
        this.fencingToken = fencingToken;
        this.acquiredNanos = acquiredNanos;
        this.watchdog = watchdog;
        this.fixedDeadlineNanos = acquiredNanos + leaseNanos;
    }

    @Override
    public String key() {
        return this.hold.key();
    }

    @Override
    public String name() {
        return this.name;
    }

    @Override
    public String ownerToken() {
        return this.hold.ownerToken;
    }

    @Override
    public long fencingToken() {
        return this.fencingToken;
    }

    @Override
    public Instant leaseDeadline() {
        return Instant.now().plusNanos(this.hold.deadlineNanos() - System.nanoTime());
    }

    @Override
    public boolean isHeld() {
        return !this.released.get() && this.hold.isValid();
    }

    @Override
    public void onLeaseLost(Consumer<LeaseLostException> callback) {
        if (callback == null) {
            throw new IllegalArgumentException("callback must not be null");
        }
        if (!this.released.get()) {
            this.lostCallbacks.add(callback, this.hold::lostReason);
            return;
        }
        LeaseLostException lost = this.lostWhileHeld;
        if (lost != null) {
            LostCallbacks.call(callback, lost);
        }
    }

    /** Marks the handle released; false when it was already. Its lease-lost callbacks are dropped. */
    boolean markReleased() {
        if (!this.released.compareAndSet(false, true)) {
            return false;
        }
        this.lostWhileHeld = this.hold.lostReason();
        this.lostCallbacks.clear();
        return true;
    }

    @Override
    public void release() {
        if (markReleased()) {
            this.service.release(this, 0);
        }
    }

    @Override
    public void releaseAfter(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be null or negative, but was " + delay);
        }
        if (delay.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException(
                    "delay must be at most " + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + delay);
        }
        if (markReleased()) {
            this.service.release(this, delay.toMillis());
        }
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + key() + ", fencingToken=" + this.fencingToken + ", held=" + isHeld() + "]";
    }
}
