package dev.distlock;

import java.time.Duration;
import java.util.List;

/**
 * What a lock service tells operators about its locks: the locks this process holds, whether the watchdog keeps up,
 * and whether Redis answers. Every service of this library implements it; health checks, metrics and the actuator
 * endpoint read it. Each method is quick and safe from any thread, except {@link #ping()} and {@link #inspect},
 * which wait for Redis.
 */
public interface LockInspection {

    /**
     * The locks this service holds now, oldest first: one entry per owner, key and type (reentrant acquisitions are
     * counted in {@link HeldLock#holdCount()}), without locks that were released, lost or are past their lease
     * deadline. An immutable snapshot.
     */
    List<HeldLock> heldLocks();

    /**
     * Reads from Redis who holds and who waits for one key's lock, whichever instance took it: per type of lock found
     * under the key, its holders (instance: host, application, process id; owner thread; since; lease left; fencing
     * token) and waiters. For an operator with a stuck lock; not for deciding anything under a lock, since the answer
     * may be stale as soon as it arrives. A dozen or so Redis reads, on the calling thread; it writes nothing. Safe from
     * any thread.
     *
     * @param key the lock's key, as given to {@link LockService#acquire(String, LockOptions)}
     * @return one entry per type of lock held or waited for under the key (usually one); empty when it is free
     * @throws IllegalArgumentException when the key is not a valid lock key
     * @throws LockUnavailableException when Redis cannot be reached or does not answer within the client's command
     * timeout
     */
    List<LockStatus> inspect(String key);

    /** How many leases the watchdog is renewing now. */
    int renewingCount();

    /** How often the watchdog renews leases. */
    Duration renewalInterval();

    /**
     * How many leases the watchdog is behind with: watched leases last granted or renewed more than two
     * {@linkplain #renewalInterval() renewal intervals} ago. A healthy watchdog renews every lease once per interval,
     * so this is zero unless renewals fail (Redis unreachable or slow) or the watchdog's thread is starved. An overdue
     * lease is still valid until its deadline; it is lost if renewal does not catch up by then.
     */
    int overdueRenewalCount();

    /**
     * Asks Redis whether it answers (in quorum mode, every master, needing a quorum).
     *
     * @return how long the answer took
     * @throws LockUnavailableException (with an empty {@link LockException#key()}) when Redis cannot be reached or
     * does not answer within the client's command timeout
     */
    Duration ping();
}
