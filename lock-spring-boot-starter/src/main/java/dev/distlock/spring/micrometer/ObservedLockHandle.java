package dev.distlock.spring.micrometer;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.spring.ScopedLockHandle;

/** A handle whose scope is that of its lock's {@value LockObservations#LOCKED} observation. */
class ObservedLockHandle implements ScopedLockHandle {

    private final LockHandle lock;

    final LockObservations observations;

    ObservedLockHandle(LockHandle lock, LockObservations observations) {
        this.lock = lock;
        this.observations = observations;
    }

    @Override
    public Scope openScope() {
        return this.observations.openScope(this.lock);
    }

    @Override
    public String key() {
        return this.lock.key();
    }

    @Override
    public String name() {
        return this.lock.name();
    }

    @Override
    public String ownerToken() {
        return this.lock.ownerToken();
    }

    @Override
    public long fencingToken() {
        return this.lock.fencingToken();
    }

    @Override
    public Instant leaseDeadline() {
        return this.lock.leaseDeadline();
    }

    @Override
    public boolean isHeld() {
        return this.lock.isHeld();
    }

    @Override
    public void onLeaseLost(Consumer<LeaseLostException> callback) {
        this.lock.onLeaseLost(callback);
    }

    @Override
    public void release() {
        this.lock.release();
    }

    @Override
    public void releaseAfter(Duration delay) {
        this.lock.releaseAfter(delay);
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return this.lock.releaseAsync();
    }

    @Override
    public String toString() {
        return this.lock.toString();
    }
}
