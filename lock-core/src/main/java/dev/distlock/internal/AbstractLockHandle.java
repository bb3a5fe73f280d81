package dev.distlock.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;

/**
 * What every handle shares: release exactly once (a delay is checked first), and lease-lost callbacks that run once
 * while the handle is unreleased. A subclass releases in {@link #releaseNow(Duration)} and says in
 * {@link #lostReason()} whether its lease is known lost.
 */
public abstract class AbstractLockHandle implements LockHandle {

    private final AtomicBoolean released = new AtomicBoolean();

    private final LostCallbacks lostCallbacks = new LostCallbacks();

    /** The loss, when the lease was known lost before the release: owed to callbacks added afterwards. */
    private volatile @Nullable LeaseLostException lostWhileHeld;

    @Override
    public final void release() {
        if (markReleased()) {
            releaseNow(Duration.ZERO);
        }
    }

    @Override
    public final CompletableFuture<Void> releaseAsync() {
        if (!markReleased()) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            return releaseNowAsync();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    @Override
    public final void releaseAfter(Duration delay) {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be null or negative, but was " + delay);
        }
        if (delay.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException(
                    "delay must be at most " + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + delay);
        }
        if (markReleased()) {
            releaseNow(delay);
        }
    }

    @Override
    public final void onLeaseLost(Consumer<LeaseLostException> callback) {
        if (callback == null) {
            throw new IllegalArgumentException("callback must not be null");
        }
        if (!this.released.get()) {
            this.lostCallbacks.add(callback, this::lostReason);
            return;
        }
        LeaseLostException lost = this.lostWhileHeld;
        if (lost != null) {
            LostCallbacks.call(callback, lost);
        }
    }

    /** Runs this handle's lease-lost callbacks once, unless it was released. */
    public final void leaseLost(LeaseLostException reason) {
        this.lostCallbacks.fire(reason);
    }

    /** Whether {@link #release()} or {@link #releaseAfter(Duration)} was called. */
    protected final boolean isReleased() {
        return this.released.get();
    }

    /** The loss of this handle's lease, once known; null while it is not known lost. */
    protected abstract @Nullable LeaseLostException lostReason();

    /**
     * Releases the lock, once: now for a zero {@code keepHeld}, else leaving it held that much longer.
     *
     * @throws LeaseLostException and the other exceptions {@link LockHandle#release()} lists
     */
    protected abstract void releaseNow(Duration keepHeld);

    /**
     * Releases the lock now, once, without blocking where the subclass can; the default releases on the calling
     * thread.
     */
    protected CompletableFuture<Void> releaseNowAsync() {
        releaseNow(Duration.ZERO);
        return CompletableFuture.completedFuture(null);
    }

    private boolean markReleased() {
        if (!this.released.compareAndSet(false, true)) {
            return false;
        }
        this.lostWhileHeld = lostReason();
        this.lostCallbacks.clear();
        return true;
    }
}
