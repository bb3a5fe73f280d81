package dev.distlock.bench.clients;

/**
 * The one thing every implementation under test does: take a lock by key, waiting (watchdog mode, no fixed lease),
 * and release it from the same thread. One instance is one client of Redis, with its own connections, as one process
 * would have; it is thread-safe.
 */
public interface LockClient extends AutoCloseable {

    /**
     * Acquires the lock, waiting while another owner holds it.
     *
     * @throws AcquireTimeoutException when it is still held after the client's maximum wait
     */
    Held acquire(String key) throws Exception;

    /** Anything the client noticed that the report should mention (empty by default). */
    default String diagnostics() {
        return "";
    }

    /** Closes the client's connections and threads; locks still held expire with their lease. */
    @Override
    void close();

    /** A held lock. */
    @FunctionalInterface
    interface Held {

        /** Releases the lock; called on the thread that acquired it. */
        void release() throws Exception;
    }

    /** The lock was still held by another owner when the maximum wait ran out. */
    final class AcquireTimeoutException extends Exception {

        private static final long serialVersionUID = 1L;

        public AcquireTimeoutException(String key) {
            super("timed out waiting for lock '" + key + "'");
        }
    }
}
