package dev.distlock.memory;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

import dev.distlock.LeaseLostException;
import dev.distlock.internal.AbstractLockHandle;

/** One acquisition: an entry of its owner's {@link MemoryHold}. */
final class MemoryLockHandle extends AbstractLockHandle {

    final MemoryHold hold;

    final boolean watchdog;

    /** The end of this acquisition's fixed lease on {@link System#nanoTime()}; unused with the watchdog. */
    final long fixedDeadlineNanos;

    final long acquiredNanos = System.nanoTime();

    private final String key;

    private final String name;

    private final InMemoryLockStore store;

    MemoryLockHandle(InMemoryLockStore store, MemoryHold hold, String key, String name, @Nullable Duration leaseTime) {
        this.store = store;
        this.hold = hold;
        this.key = key;
        this.name = name;
        this.watchdog = (leaseTime == null);
        this.fixedDeadlineNanos = this.acquiredNanos + ((leaseTime != null) ? leaseTime.toNanos() : 0);
    }

    @Override
    public String key() {
        return this.key;
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
        return this.hold.fencingToken;
    }

    /** With the watchdog, one watchdog lease from now, as if it had just been renewed (in one JVM it always is). */
    @Override
    public Instant leaseDeadline() {
        long deadline = this.hold.deadlineNanos();
        if (deadline == Long.MAX_VALUE) {
            return Instant.now().plus(this.hold.owner.service().watchdogLease());
        }
        return Instant.now().plusNanos(deadline - System.nanoTime());
    }

    @Override
    public boolean isHeld() {
        return !isReleased() && this.hold.isValid();
    }

    @Override
    protected @Nullable LeaseLostException lostReason() {
        LeaseLostException lost = this.hold.lostReason();
        if (lost == null && !this.hold.isValid()) {
            return InMemoryLockStore.ranOut(this.key); // past its deadline, not yet noticed by the store
        }
        return lost;
    }

    @Override
    protected void releaseNow(Duration keepHeld) {
        this.store.release(this, keepHeld);
    }

    @Override
    public String toString() {
        return "LockHandle[key=" + this.key + ", fencingToken=" + fencingToken() + ", held=" + isHeld() + "]";
    }
}
