package dev.distlock.bench.clients;

/**
 * A leased semaphore of {@value #LIMIT} permits per key: take one permit, waiting while all are held, and give it
 * back. One instance is one client of Redis with its own connections; it is thread-safe, and a permit may be
 * released from any thread.
 */
public interface SemaphoreClient extends AutoCloseable {

    /** The limit of every semaphore of the benchmark. */
    int LIMIT = 5;

    /**
     * Makes {@code key} a semaphore of {@value #LIMIT} permits where the implementation needs that done first
     * (Redisson's {@code trySetPermits}); nothing for distlock, whose limit travels with each call. Run outside the
     * measured windows.
     *
     * @throws IllegalStateException when the key already holds a semaphore of another limit
     */
    void prepare(String key);

    /**
     * Takes one permit, waiting up to the client's maximum wait.
     *
     * @throws LockClient.AcquireTimeoutException when no permit came free within the maximum wait
     */
    Permit acquire(String key) throws Exception;

    /** Closes the client's connections and threads; permits still held expire with their lease. */
    @Override
    void close();

    /** A held permit. */
    @FunctionalInterface
    interface Permit {

        void release() throws Exception;
    }

    /** Whether {@link #open} has a semaphore client of that implementation. */
    static boolean supports(Implementation implementation) {
        return implementation == Implementation.DISTLOCK || implementation == Implementation.REDISSON;
    }

    /**
     * Opens a semaphore client of {@code implementation}: distlock's watchdog-renewed permits, or Redisson's
     * {@code RPermitExpirableSemaphore} with {@code settings.watchdogLease()} as its fixed lease.
     *
     * @throws IllegalArgumentException for an implementation without one
     */
    static SemaphoreClient open(Implementation implementation, ClientSettings settings) {
        return switch (implementation) {
            case DISTLOCK -> new DistlockSemaphoreClient(settings);
            case REDISSON -> new RedissonSemaphoreClient(settings);
            default -> throw new IllegalArgumentException(implementation.label() + " has no semaphore client");
        };
    }
}
