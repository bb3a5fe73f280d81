package dev.distlock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.internal.AbstractLockHandle;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseHolder;

/** One acquisition: a hold id within its owner's {@link Hold}. */
final class RedisLockHandle extends AbstractLockHandle implements LeaseHolder {

    final Hold hold;

    final String holdId;

    final long acquiredNanos;

    /** Whether a releasing holder of this service handed the lock to this call ({@link HandOffs}). */
    final boolean handedOff;

    private final boolean watchdog;

    private final long fixedDeadlineNanos;

    private final long fencingToken;

    private final String name;

    private final Releaser releaser;

    RedisLockHandle(Releaser releaser, Hold hold, String holdId, String name, long fencingToken, long acquiredNanos,
            boolean watchdog, long leaseNanos, boolean handedOff) {
        this.releaser = releaser;
        this.handedOff = handedOff;
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
        return this.hold.ownerToken();
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
        return !isReleased() && this.hold.isValid();
    }

    @Override
    public boolean renewedByWatchdog() {
        return this.watchdog;
    }

    @Override
    public long fixedDeadlineNanos() {
        return this.fixedDeadlineNanos;
    }

    @Override
    protected @Nullable LeaseLostException lostReason() {
        return this.hold.lostReason();
    }

    @Override
    protected void releaseNow(Duration keepHeld) {
        this.releaser.release(this, keepHeld.toNanos());
    }

    @Override
    protected CompletableFuture<Void> releaseNowAsync() {
        return this.releaser.releaseAsync(this);
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + key() + ", fencingToken=" + this.fencingToken + ", held=" + isHeld() + "]";
    }

    /** Releases a handle's acquisition in Redis. */
    interface Releaser {

        /** Releases it now, or when {@code keepHeldNanos} > 0 leaves the lock held that much longer. */
        void release(RedisLockHandle handle, long keepHeldNanos);

        /** Releases it now without blocking; completes as {@link #release} returns or throws. */
        CompletableFuture<Void> releaseAsync(RedisLockHandle handle);
    }
}
