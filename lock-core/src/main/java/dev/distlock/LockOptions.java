package dev.distlock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How one acquisition behaves: the type of lock (or the permits of a semaphore), how long to wait, how the lease is
 * kept, who owns the lock for reentrancy, and the name that metrics and traces show.
 * Immutable; every {@code with...} method returns a copy and checks its argument at once.
 *
 * <pre>{@code
 * LockOptions.defaults().withMode(LockMode.READ).withWaitTime(Duration.ofSeconds(2))
 * LockOptions.defaults().withPermits(5)   // one permit of a semaphore of 5 on the key
 * }</pre>
 */
public final class LockOptions {

    /** The longest lease accepted: longer leases are almost always a unit mistake. */
    public static final Duration MAX_LEASE_TIME = Duration.ofDays(7);

    private static final LockOptions DEFAULTS = new LockOptions(LockMode.EXCLUSIVE, null, null, null, null, 0, 1);

    private final LockMode mode;

    private final @Nullable Duration waitTime;

    private final @Nullable Duration leaseTime;

    private final @Nullable Object owner;

    private final @Nullable String name;

    /** A semaphore's limit, 0 when this is no semaphore acquisition. */
    private final int permitLimit;

    /** The permits a semaphore acquisition takes. */
    private final int permits;

    private LockOptions(LockMode mode, @Nullable Duration waitTime, @Nullable Duration leaseTime,
            @Nullable Object owner, @Nullable String name, int permitLimit, int permits) {
        this.mode = mode;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.owner = owner;
        this.name = name;
        this.permitLimit = permitLimit;
        this.permits = permits;
    }

    /**
     * An {@link LockMode#EXCLUSIVE} lock, the service's default wait time, a lease kept alive by the watchdog, and the
     * calling thread as owner.
     */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * The type of lock to take: {@link LockMode#EXCLUSIVE} (the default), {@link LockMode#READ} or
     * {@link LockMode#WRITE} of a read/write lock, or {@link LockMode#FAIR}. The same for every key of
     * {@link LockService#acquireAll}. After {@link #withPermits(int)}, {@code EXCLUSIVE} means
     * {@link LockMode#SEMAPHORE} and {@code FAIR} means {@link LockMode#FAIR_SEMAPHORE}.
     *
     * @throws IllegalArgumentException when {@code mode} is null, or is {@code READ} or {@code WRITE} after
     * {@link #withPermits(int)}
     */
    public LockOptions withMode(LockMode mode) {
        requireNonNull(mode, "mode");
        return new LockOptions((this.permitLimit > 0) ? semaphoreMode(mode) : mode, this.waitTime, this.leaseTime,
                this.owner, this.name, this.permitLimit, this.permits);
    }

    /**
     * Makes this the acquisition of one permit of a semaphore of {@code limit} permits on the key, instead of a lock;
     * same as {@code withPermits(limit, 1)}.
     *
     * @throws IllegalArgumentException as {@link #withPermits(int, int)} does
     */
    public LockOptions withPermits(int limit) {
        return withPermits(limit, 1);
    }

    /**
     * Makes this the acquisition of {@code permits} permits of a semaphore of {@code limit} permits on the key, instead
     * of a lock: {@link LockService#acquire} waits until that many are free, and the handle holds them until its
     * release, with its own lease (a holder that dies frees them when its lease ends), its own fencing token and its
     * own loss report. The mode becomes {@link LockMode#SEMAPHORE}, or {@link LockMode#FAIR_SEMAPHORE} after
     * {@code withMode(FAIR)}. Every acquisition takes permits of its own: none is reentrant.
     *
     * <p>Each grant checks the limit its own call names. Callers of one key should name the same limit; while a new
     * limit is rolled out, permits held under the old one stay held (nothing is revoked), and a caller with a lower
     * limit is refused until enough of them are released that its grant keeps the count within its limit.
     *
     * @throws IllegalArgumentException when {@code limit} is below 1, {@code permits} is below 1 or above
     * {@code limit}, the mode is {@code READ} or {@code WRITE}, or an owner was given
     */
    public LockOptions withPermits(int limit, int permits) {
        if (limit < 1) {
            throw new IllegalArgumentException("permit limit must be at least 1, but was " + limit);
        }
        if (permits < 1 || permits > limit) {
            throw new IllegalArgumentException(
                    "permits must be between 1 and the limit of " + limit + ", but was " + permits);
        }
        if (this.owner != null) {
            throw ownerOfPermits();
        }
        return new LockOptions(semaphoreMode(this.mode), this.waitTime, this.leaseTime, this.owner, this.name, limit,
                permits);
    }

    private static LockMode semaphoreMode(LockMode mode) {
        return switch (mode) {
            case EXCLUSIVE, SEMAPHORE -> LockMode.SEMAPHORE;
            case FAIR, FAIR_SEMAPHORE -> LockMode.FAIR_SEMAPHORE;
            case READ, WRITE -> throw new IllegalArgumentException(
                    "A semaphore has no " + mode + " side: use EXCLUSIVE or FAIR with withPermits");
        };
    }

    private static IllegalArgumentException ownerOfPermits() {
        return new IllegalArgumentException("A semaphore's permits have no owner: each acquisition takes permits of "
                + "its own and is never reentrant, so withOwner does not apply to withPermits");
    }

    /**
     * How long {@link LockService#acquire} waits for another owner to release the lock. Zero means one attempt.
     *
     * @throws IllegalArgumentException when {@code waitTime} is null or negative
     */
    public LockOptions withWaitTime(Duration waitTime) {
        requireNonNull(waitTime, "waitTime");
        if (waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative, but was " + waitTime);
        }
        return new LockOptions(this.mode, waitTime, this.leaseTime, this.owner, this.name, this.permitLimit,
                this.permits);
    }

    /**
     * Holds the lock for a fixed lease with no renewal: Redis frees it when the lease ends, even if the holder has not
     * released it. Without this, the watchdog renews the lease for as long as the lock is held. A grant whose reply
     * comes back after its lease ended (a stalled Redis, a cold connection) is undone: a waiting call tries again, a
     * single attempt fails with {@link LeaseExpiredOnArrivalException}. Redis keeps whole milliseconds: a part of one
     * counts as a whole one, so the lease in Redis never ends before the one the handle counts.
     *
     * @throws IllegalArgumentException when {@code leaseTime} is null, shorter than a millisecond, or longer than
     * {@link #MAX_LEASE_TIME}
     */
    public LockOptions withLeaseTime(Duration leaseTime) {
        requireNonNull(leaseTime, "leaseTime");
        if (leaseTime.compareTo(MAX_LEASE_TIME) > 0) { // before toMillis(), which overflows for huge durations
            throw new IllegalArgumentException(
                    "leaseTime must be at most " + MAX_LEASE_TIME.toDays() + " days, but was " + leaseTime);
        }
        if (leaseTime.compareTo(Duration.ofMillis(1)) < 0) { // also a huge negative, without overflow
            throw new IllegalArgumentException("leaseTime must be at least 1ms, but was " + leaseTime);
        }
        return new LockOptions(this.mode, this.waitTime, leaseTime, this.owner, this.name, this.permitLimit,
                this.permits);
    }

    /** Keeps the lease alive with the watchdog until release (the default). */
    public LockOptions withWatchdog() {
        return new LockOptions(this.mode, this.waitTime, null, this.owner, this.name, this.permitLimit, this.permits);
    }

    /**
     * Names the owner for reentrancy: an acquisition whose owner {@link Object#equals equals} that of a held
     * acquisition of the same key re-enters it instead of waiting. The default owner is the calling thread. Pass the
     * task or request object when a lock's handle moves between threads, or {@code new Object()} for a lock that
     * never re-enters.
     *
     * <p>By design, threads of one service that pass equal owners share one reentrant hold and are inside the
     * critical section together, so never pass a user id or other shared value as the owner. Owners of different
     * services never share a lock: each service's owner token is its own random value.
     *
     * @throws IllegalArgumentException when {@code owner} is null, or for a semaphore, whose permits have no owner
     */
    public LockOptions withOwner(Object owner) {
        requireNonNull(owner, "owner");
        if (this.mode.isSemaphore()) {
            throw ownerOfPermits();
        }
        return new LockOptions(this.mode, this.waitTime, this.leaseTime, owner, this.name, this.permitLimit,
                this.permits);
    }

    /**
     * Names the lock for metrics, traces and {@link LockEvent}s, which never show the key: a key may hold a
     * user id, and one label per key would give a metrics backend one time series per user. Use a fixed text per
     * kind of lock, such as {@code "stock"} or {@code "OrderService.reserve"}; {@code @DistributedLock} methods are
     * named after their class and method.
     *
     * <p>Without a name, the name is derived from the key: the key's text before its first {@code ':'} when that text
     * is 1 to 64 letters, {@code '.'}, {@code '-'} or {@code '_'} (so {@code "stock:42"} is {@code "stock"}), and
     * {@code "unnamed"} otherwise: for a key without {@code ':'}, or one whose first part has digits or other
     * characters that an id may have ({@code "user-42:cart"}, {@code "alice@example.com:cart"}). So start keys with
     * their kind, and put ids after the first {@code ':'}.
     *
     * @throws IllegalArgumentException when {@code name} is null, blank, longer than 200 characters or has control
     * characters
     */
    public LockOptions withName(String name) {
        return new LockOptions(this.mode, this.waitTime, this.leaseTime, this.owner, LockNames.check(name),
                this.permitLimit, this.permits);
    }

    /** The type of lock. */
    public LockMode mode() {
        return this.mode;
    }

    /** The wait time, or null for the service's default. */
    public @Nullable Duration waitTime() {
        return this.waitTime;
    }

    /** The fixed lease, or null when the watchdog keeps the lease. */
    public @Nullable Duration leaseTime() {
        return this.leaseTime;
    }

    /** The reentrancy owner, or null for the calling thread. */
    public @Nullable Object owner() {
        return this.owner;
    }

    /** The semaphore's limit given with {@link #withPermits(int, int)}, or 0 for a lock. */
    public int permitLimit() {
        return this.permitLimit;
    }

    /** The permits a semaphore acquisition takes (1 unless {@link #withPermits(int, int)} said otherwise). */
    public int permits() {
        return this.permits;
    }

    /** The name given with {@link #withName(String)}, or null to derive it from the key. */
    public @Nullable String name() {
        return this.name;
    }

    /**
     * The name of a lock of this key taken with these options: the name given with {@link #withName(String)}, or the
     * one derived from the key by the rule described there, which never gives more of the key than its first part.
     *
     * @throws IllegalArgumentException when {@code key} is null
     */
    public String nameFor(String key) {
        requireNonNull(key, "key");
        return (this.name != null) ? this.name : LockNames.derive(key);
    }

    private static void requireNonNull(@Nullable Object value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return this == other || (other instanceof LockOptions that && this.mode == that.mode
                && Objects.equals(this.waitTime, that.waitTime)
                && Objects.equals(this.leaseTime, that.leaseTime) && Objects.equals(this.owner, that.owner)
                && Objects.equals(this.name, that.name) && this.permitLimit == that.permitLimit
                && this.permits == that.permits);
    }

    @Override
    public int hashCode() {
        return Objects.hash(this.mode, this.waitTime, this.leaseTime, this.owner, this.name, this.permitLimit,
                this.permits);
    }

    @Override
    public String toString() {
        return "LockOptions[mode=" + this.mode
                + ((this.permitLimit > 0) ? ", permits=" + this.permits + " of " + this.permitLimit : "")
                + ", waitTime=" + (this.waitTime != null ? this.waitTime : "default")
                + ", leaseTime=" + (this.leaseTime != null ? this.leaseTime : "watchdog") + ", owner="
                + (this.owner != null ? this.owner : "calling thread") + ", name="
                + (this.name != null ? this.name : "from key") + "]";
    }
}
