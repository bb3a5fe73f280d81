package dev.distlock.bench.clients;

import java.util.concurrent.CompletionStage;

/**
 * The non-blocking counterpart of {@link LockClient}: take a lock by key (watchdog mode, no fixed lease, waiting up
 * to the client's maximum wait) and release it, without blocking the calling thread. Completions arrive on the
 * client's I/O threads. One instance is one client of Redis, as one process would have; it is thread-safe.
 */
public interface AsyncLockClient extends AutoCloseable {

    /**
     * Starts acquiring the lock for {@code owner}, a small number that identifies one chain of cycles: a client whose
     * locks belong to a thread (Redisson) gets a distinct thread id per owner.
     *
     * @return completes with the held lock, or exceptionally (e.g. when it is still held after the maximum wait)
     */
    CompletionStage<Held> acquire(String key, int owner);

    /** Closes the client's connections and threads; locks still held expire with their lease. */
    @Override
    void close();

    /** A held lock. */
    @FunctionalInterface
    interface Held {

        /** Starts releasing the lock; completes once Redis has released it. */
        CompletionStage<Void> release();
    }
}
