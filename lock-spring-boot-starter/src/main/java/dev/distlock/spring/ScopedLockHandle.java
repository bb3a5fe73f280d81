package dev.distlock.spring;

import dev.distlock.LockHandle;

/**
 * A lock handle with a context that belongs on the thread doing the locked work, such as the lock's tracing
 * observation (see {@link dev.distlock.spring.micrometer.ObservedLockService}): spans started inside the scope become
 * its children. A {@link DistributedLock} method runs inside the scope of its handle.
 */
public interface ScopedLockHandle extends LockHandle {

    /** Makes the handle's context current on the calling thread until the scope is closed, on the same thread. */
    Scope openScope();

    /** The scope of {@code lock} if it has one, or a scope that does nothing. */
    static Scope openScope(LockHandle lock) {
        return (lock instanceof ScopedLockHandle scoped) ? scoped.openScope() : () -> {
        };
    }

    /** A context made current; closing it restores the one that was current before. */
    @FunctionalInterface
    interface Scope extends AutoCloseable {

        @Override
        void close();
    }
}
