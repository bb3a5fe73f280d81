package dev.distlock.spring.micrometer;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.spring.ScopedLockHandle;

/** A handle whose release stops the observation of the time the lock was held. */
class ObservedLockHandle implements ScopedLockHandle {

    private final LockHandle lock;

    private final Observation observation;

    private final AtomicBoolean stopped = new AtomicBoolean();

    ObservedLockHandle(LockHandle lock, Observation observation) {
        this.lock = lock;
        this.observation = observation;
    }

    @Override
    public Scope openScope() {
        Observation.Scope scope = this.observation.openScope();
        return scope::close;
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
        ending(this.lock::release);
    }

    @Override
    public void releaseAfter(Duration delay) {
        ending(() -> this.lock.releaseAfter(delay));
    }

    @Override
    public CompletableFuture<Void> releaseAsync() {
        return this.lock.releaseAsync().whenComplete((ignored, failure) -> {
            if (this.stopped.compareAndSet(false, true)) {
                if (failure != null) {
                    this.observation.error(failure);
                }
                this.observation.stop();
            }
        });
    }

    /** Runs a release, then stops the observation once, with the release's failure as its error. */
    private void ending(Runnable release) {
        try {
            release.run();
        }
        catch (IllegalArgumentException ex) {
            throw ex; // a bad argument released nothing
        }
        catch (RuntimeException ex) {
            if (this.stopped.compareAndSet(false, true)) {
                this.observation.error(ex);
                this.observation.stop();
            }
            throw ex;
        }
        if (this.stopped.compareAndSet(false, true)) {
            this.observation.stop();
        }
    }

    @Override
    public String toString() {
        return this.lock.toString();
    }
}
