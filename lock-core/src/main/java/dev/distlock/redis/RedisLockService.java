package dev.distlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockListener;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.NotLockOwnerException;
import dev.distlock.redis.Hold.HoldKey;
import dev.distlock.redis.ReleaseSubscriptions.Waiter;

/**
 * A {@link LockService} on Redis, through a Spring Data Redis {@link StringRedisTemplate}.
 *
 * <p>A lock cycle costs two round trips: one script to acquire, one to release (which also publishes the release).
 * One daemon thread per service renews watchdog leases in batches, and another closes idle subscriptions, so that
 * pub/sub never delays renewal; waiting threads share one pub/sub connection, or poll ({@link WaitStrategy}).
 * A third, started on first need, undoes acquisitions whose outcome a failure left unknown. {@link #close()} stops
 * them all; locks still held then expire at the end of their lease.
 *
 * <p>It works on a standalone Redis, through Sentinel, and on a Redis Cluster (a Lettuce connection factory with a
 * cluster configuration): every key of one lock is in one slot, renewals are batched per slot, and releases use
 * sharded pub/sub when Redis 7 accepts it. Behind a sharding proxy such as Twemproxy, set
 * {@link Builder#shardingProxy(boolean)}.
 *
 * <pre>{@code
 * RedisLockService locks = RedisLockService.builder(stringRedisTemplate).keyPrefix("orders").build();
 * }</pre>
 */
public final class RedisLockService implements LockService, AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisLockService.class);

    private static final AtomicInteger threadCount = new AtomicInteger();

    private static final long POLL_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final long POLL_MAX_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** The longest a subscribed waiter sleeps without checking: bounds the cost of a release message lost anyway. */
    private static final long RECHECK_MAX_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final int RELEASE_ATTEMPTS = 3;

    /** At most this many undos wait while Redis does not answer; beyond that a failed grant expires with its lease. */
    private static final int CLEAN_UP_QUEUE = 10_000;

    private final LockKeys keys;

    private final Map<LockMode, LockType> types;

    private final Duration defaultWaitTime;

    private final long watchdogLeaseNanos;

    private final String watchdogLeaseMillis;

    private final String clientId;

    /** How often a waiter that keeps a place in Redis (a fair queue place, a write intent) refreshes it. */
    private final long placeRefreshNanos;

    private final LockListener listener;

    private final StringRedisTemplate redis;

    private final ConcurrentHashMap<HoldKey, Hold> holds = new ConcurrentHashMap<>();

    private final SecureRandom random = new SecureRandom();

    private final ScheduledThreadPoolExecutor scheduler;

    /** Undoes acquisitions that failed, off the caller's path and off the watchdog's thread. */
    private final ThreadPoolExecutor cleanUps;

    private final LeaseWatchdog watchdog;

    private final ReleaseSubscriptions subscriptions;

    private final @Nullable ReplicaAcknowledgement replicaAcknowledgement;

    private final ReconnectCheck reconnectCheck;

    private volatile boolean closed;

    private RedisLockService(Builder builder) {
        // a sharding proxy such as Twemproxy drops the connection on INFO: check the shards' policy yourself there
        EvictionGuard evictionGuard = new EvictionGuard(builder.redis,
                builder.shardingProxy ? EvictionPolicyCheck.OFF : builder.evictionPolicyCheck);
        evictionGuard.check(true);
        this.keys = new LockKeys(builder.keyPrefix);
        this.defaultWaitTime = builder.defaultWaitTime;
        this.watchdogLeaseNanos = builder.watchdogLease.toNanos();
        this.watchdogLeaseMillis = Long.toString(builder.watchdogLease.toMillis());
        this.clientId = HexFormat.of().formatHex(randomBytes(8));
        this.placeRefreshNanos = builder.waiterLease.toNanos() / 3;
        ShardedPubSub sharded = new ShardedPubSub(builder.redis, this.keys.releaseChannel(AccessCheck.PROBE_KEY));
        RestartGrace grace = new RestartGrace(builder.restartGrace, builder.keyPrefix,
                builder.redis.getRequiredConnectionFactory() instanceof LettuceConnectionFactory factory
                        && factory.isClusterAware());
        this.types = LockType.all(new LockType.Context(this.keys, new LockScripts(builder.redis, grace), this.clientId,
                Long.toString(((builder.tokenRetention != null) ? builder.tokenRetention
                        : TokenRetention.forRetries(builder.redis.getRequiredConnectionFactory(), RELEASE_ATTEMPTS))
                    .toMillis()), Long.toString(builder.waiterLease.toMillis()),
                sharded));
        this.listener = builder.listener;
        this.redis = builder.redis;
        this.replicaAcknowledgement = builder.replicaAcknowledgement;
        this.scheduler = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "distlock-watchdog-" + threadCount.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.cleanUps = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(CLEAN_UP_QUEUE), task -> {
                    Thread thread = new Thread(task, "distlock-cleanup-" + threadCount.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }, (task, executor) -> logger.warn("Too many failed acquisitions to undo; the lock of one expires "
                        + "with its lease"));
        RedisConnectionFactory connectionFactory = builder.redis.getRequiredConnectionFactory();
        boolean cluster = connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
        Duration interval = (builder.renewalInterval != null) ? builder.renewalInterval
                : builder.watchdogLease.dividedBy(3);
        if (cluster && this.replicaAcknowledgement != null) {
            throw new IllegalArgumentException("replicaAcknowledgements works with a single master and its replicas "
                    + "(standalone or Sentinel), not with Redis Cluster");
        }
        if (cluster && builder.shardingProxy) {
            throw new IllegalArgumentException("shardingProxy is for a proxy in front of Redis, not for a Redis "
                    + "Cluster connection");
        }
        LeaseWatchdog.Batching batching = cluster ? LeaseWatchdog.Batching.BY_SLOT
                : builder.shardingProxy ? LeaseWatchdog.Batching.BY_LOCK : LeaseWatchdog.Batching.BY_TYPE;
        this.watchdog = new LeaseWatchdog(this.scheduler, this.watchdogLeaseNanos, interval.toNanos(),
                batching, this.listener, this::lose, this.replicaAcknowledgement);
        this.reconnectCheck = new ReconnectCheck(builder.redis, this.holds::values, this::lose, this::cleanUp,
                evictionGuard);
        this.subscriptions = new ReleaseSubscriptions(connectionFactory,
                (builder.waitStrategy() == WaitStrategy.POLLING) ? null
                        : listener -> ChannelSubscriber.create(connectionFactory, sharded, listener),
                this.keys.prefix() + ":client:" + this.clientId, this.clientId, TimeUnit.SECONDS.toNanos(10));
    }

    /** Starts building a service on the given template (any connection factory; Lettuce is the tested one). */
    public static Builder builder(StringRedisTemplate redis) {
        if (redis == null) {
            throw new IllegalArgumentException("redis template must not be null");
        }
        return new Builder(redis);
    }

    @Override
    public LockHandle acquire(String key, LockOptions options) {
        RedisLockHandle handle = acquire(key, options, false);
        if (handle == null) {
            throw new IllegalStateException("unreachable: a waiting acquisition returns a handle or throws");
        }
        return handle;
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        return Optional.ofNullable(acquire(key, options, true));
    }

    @Override
    public MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        LockSet locks = acquireAll(keys, options, false);
        if (locks == null) {
            throw new IllegalStateException("unreachable: a waiting acquisition returns a handle or throws");
        }
        return locks;
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        return Optional.ofNullable(acquireAll(keys, options, true));
    }

    private @Nullable LockSet acquireAll(Collection<String> keys, LockOptions options, boolean once) {
        List<String> canonical = MultiKeyAcquisition.canonicalKeys(keys);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (this.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
        Duration wait = (options.waitTime() != null) ? options.waitTime() : this.defaultWaitTime;
        return MultiKeyAcquisition.acquire(this, canonical, options, wait, once);
    }

    /** Acquires, or returns null when {@code once} and the lock is held. */
    private @Nullable RedisLockHandle acquire(String key, LockOptions options, boolean once) {
        LockKeys.checkKey(key);
        if (options == null) {
            throw new IllegalArgumentException("options must not be null");
        }
        if (this.closed) {
            throw new IllegalStateException("This LockService is closed");
        }
        long start = System.nanoTime();
        Duration wait = once ? Duration.ZERO
                : (options.waitTime() != null ? options.waitTime() : this.defaultWaitTime);
        Acquisition acquisition = new Acquisition(key, options, !wait.isZero());
        RedisLockHandle handle = null;
        try {
            handle = acquisition.attempt();
            if (handle == null && acquisition.waiting) {
                handle = waitFor(acquisition, start, saturatedNanos(wait));
            }
            if (handle == null && acquisition.graceLeftMillis >= 0) {
                throw new RestartGraceException(key, Duration.ofMillis(acquisition.graceLeftMillis));
            }
        }
        catch (LockException ex) {
            Listeners.call(() -> this.listener.acquireFailed(key, acquisition.name, since(start), ex));
            throw ex;
        }
        finally {
            if (handle == null) {
                acquisition.leave();
            }
        }
        Duration waited = since(start);
        if (handle == null) {
            Listeners.call(() -> this.listener.notAcquired(key, acquisition.name, waited));
            if (once) {
                return null;
            }
            throw new LockTimeoutException(key, waited);
        }
        RedisLockHandle acquired = handle;
        Listeners.call(() -> this.listener.acquired(acquired, waited));
        return handle;
    }

    /**
     * Waits for a release: woken by the release message (or a local release), and by the holder's lease running out,
     * which publishes nothing. Without a subscription ({@link WaitStrategy#POLLING}, or while subscribing fails) it
     * polls with capped exponential backoff and jitter.
     */
    private @Nullable RedisLockHandle waitFor(Acquisition acquisition, long start, long waitNanos) {
        LockType type = acquisition.type;
        Waiter waiter = this.subscriptions.startWaiting(type.releaseChannel(acquisition.key), type.wakeUp(),
                acquisition.freshHold().ownerToken);
        boolean acquired = false;
        try {
            long pollNanos = POLL_MIN_NANOS;
            while (true) {
                if (this.closed) {
                    throw new IllegalStateException(
                            "This LockService was closed while waiting for lock '" + acquisition.key + "'");
                }
                // before the attempt: a waiter that subscribes again now misses no release after the attempt
                boolean subscribed = waiter.subscribed();
                waiter.arm();
                RedisLockHandle handle = acquisition.attempt();
                if (handle != null) {
                    acquired = true;
                    return handle;
                }
                long remaining = waitNanos - (System.nanoTime() - start);
                if (remaining <= 0) {
                    return null;
                }
                long pause = (acquisition.holderRemainingMillis >= 0)
                        ? Math.min(TimeUnit.MILLISECONDS.toNanos(acquisition.holderRemainingMillis + 1),
                                RECHECK_MAX_NANOS)
                        : POLL_MAX_NANOS;
                if (type.keepsPlace()) {
                    pause = Math.min(pause, this.placeRefreshNanos); // try again before the place lapses
                }
                if (!subscribed) {
                    pause = Math.min(pause, pollNanos / 2 + ThreadLocalRandom.current().nextLong(pollNanos / 2 + 1));
                    pollNanos = Math.min(pollNanos * 2, POLL_MAX_NANOS);
                }
                if (!waiter.await(Math.min(pause, remaining))) {
                    Thread.currentThread().interrupt();
                    throw new LockInterruptedException(acquisition.key, new InterruptedException());
                }
            }
        }
        finally {
            waiter.finish(acquired);
        }
    }

    /**
     * Releases one acquisition; {@code keepHeldMillis} > 0 leaves the lock held that much longer. Goes through on an
     * interrupted thread too, whose flag stays set.
     */
    void release(RedisLockHandle handle, long keepHeldMillis) {
        Hold hold = handle.hold;
        boolean renewedHandleRemains = hold.released(handle);
        if (hold.close()) {
            forget(hold); // the owner's last acquisition: stop renewing before the lock is freed
        }
        else if (!renewedHandleRemains) {
            this.watchdog.unwatch(hold); // the remaining acquisitions have fixed leases
        }
        LockType.Release release = new LockType.Release(handle.holdId, handle.fencingToken(), handle.watchdog,
                Long.toString(keepHeldMillis));
        long reply;
        try {
            reply = releaseWithRetries(hold, release);
        }
        catch (DataAccessException ex) {
            LockUnavailableException failure = new LockUnavailableException(hold.key(), "Could not release lock '"
                    + hold.key() + "': Redis did not answer; the lock stays until its lease runs out", ex);
            logger.warn(failure.getMessage(), ex);
            Listeners.call(() -> this.listener.releaseFailed(handle, failure));
            throw failure;
        }
        // An earlier try may have freed the lock with its reply lost: this service drops its own release messages
        if ((reply == LockScripts.FREED || reply == LockScripts.ALREADY_RELEASED) && keepHeldMillis == 0) {
            this.subscriptions.signalLocal(hold.releaseChannel);
        }
        if (reply >= 0) {
            Listeners.call(() -> this.listener.released(handle, since(handle.acquiredNanos)));
            return;
        }
        LeaseLostException lost = (reply == LockScripts.HELD_BY_ANOTHER)
                ? new NotLockOwnerException(hold.key(), "Lock '" + hold.key() + "' is held by another owner: this "
                        + "holder's lease (fencing token " + handle.fencingToken() + ") was lost before release")
                : new LeaseLostException(hold.key(), "Lock '" + hold.key()
                        + "' was no longer held at release: its lease ran out before the holder released it");
        lose(hold, lost);
        Listeners.call(() -> this.listener.releaseFailed(handle, lost));
        throw lost;
    }

    /**
     * Runs the release script, retrying a failed call. The Redis client refuses to wait for a reply on an interrupted
     * thread, so the interrupt flag is cleared before each try and set again at the end if it was set at any time.
     */
    private static long releaseWithRetries(Hold hold, LockType.Release release) {
        boolean interrupted = false;
        try {
            for (int attempt = 1;; attempt++) {
                interrupted |= Thread.interrupted();
                try {
                    return hold.type.release(hold, release);
                }
                catch (DataAccessException ex) {
                    // A retry is safe: the script recognises a hold it released already and never touches another's.
                    if (attempt == RELEASE_ATTEMPTS) {
                        throw ex;
                    }
                    interrupted |= sleepThroughInterrupts(TimeUnit.MILLISECONDS.toNanos(50L * attempt));
                }
            }
        }
        finally {
            if (interrupted || Thread.interrupted()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Sleeps the whole time even when interrupted; returns whether it was, with the flag cleared. */
    private static boolean sleepThroughInterrupts(long nanos) {
        long deadline = System.nanoTime() + nanos;
        boolean interrupted = false;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            }
            catch (InterruptedException ex) {
                interrupted = true;
            }
        }
        return interrupted;
    }

    /** Reports a lost lease once: stops renewing it, logs it, and tells the listener, then the holder's callbacks. */
    private void lose(Hold hold, LeaseLostException reason) {
        forget(hold);
        if (hold.markLost(reason)) {
            logger.warn(reason.getMessage());
            RedisLockHandle first = hold.firstHandle;
            if (first != null) {
                Listeners.call(() -> this.listener.leaseLost(first, reason));
            }
            hold.runLostCallbacks(reason);
        }
    }

    private void forget(Hold hold) {
        this.holds.remove(hold.holdKey, hold);
        this.watchdog.unwatch(hold);
    }

    /**
     * Checks once that Redis answers and that its user may run everything the lock needs, by taking, renewing and
     * releasing a probe lock of every type (key {@code distlock-access-check}) and opening the release subscription
     * (not with {@link WaitStrategy#POLLING}, which needs none).
     * Call it at start-up so that a missing permission is reported then rather than at the first lock.
     *
     * @throws IllegalStateException when Redis refuses a command for lack of permission; the message names the ACL
     * rules to grant
     * @throws LockUnavailableException when Redis cannot be reached
     */
    public void verifyAccess() {
        AccessCheck.run(this.keys.prefix(), this.types, this.subscriptions,
                HexFormat.of().formatHex(randomBytes(16)));
    }

    /** The ACL rules (key and channel patterns and commands) a Redis user needs for this service's locks. */
    public String requiredAcl() {
        return AccessCheck.requiredAcl(this.keys.prefix());
    }

    /** How many leases the watchdog is renewing now. */
    public int renewingCount() {
        return this.watchdog.watchedCount();
    }

    /** How often the watchdog renews leases. */
    public Duration renewalInterval() {
        return Duration.ofNanos(this.watchdog.intervalNanos());
    }

    /**
     * How many leases the watchdog is behind with: watched leases last granted or renewed more than two
     * {@linkplain #renewalInterval() renewal intervals} ago. A healthy watchdog renews every lease once per interval,
     * so this is zero unless renewals fail (Redis unreachable or slow) or the watchdog's thread is held up. An overdue
     * lease is still valid until its deadline; it is lost if renewal does not catch up by then.
     */
    public int overdueRenewalCount() {
        return this.watchdog.overdueCount();
    }

    /**
     * The locks this service holds now, oldest first: one entry per owner, key and type (reentrant acquisitions are
     * counted in {@link HeldLock#holdCount()}), without locks that were released, lost or are past their lease
     * deadline. An immutable snapshot.
     */
    public List<HeldLock> heldLocks() {
        List<HeldLock> held = new ArrayList<>();
        for (Hold hold : this.holds.values()) {
            HeldLock lock = hold.snapshot();
            if (lock != null) {
                held.add(lock);
            }
        }
        held.sort(Comparator.comparing(HeldLock::since).thenComparing(HeldLock::key));
        return Collections.unmodifiableList(held);
    }

    /**
     * Sends Redis a PING through this service's connection.
     *
     * @return how long the answer took
     * @throws LockUnavailableException (with an empty {@link LockException#key()}) when Redis cannot be reached or
     * does not answer within the client's command timeout
     */
    public Duration ping() {
        long start = System.nanoTime();
        try {
            this.redis.execute((RedisCallback<String>) RedisConnection::ping);
        }
        catch (DataAccessException ex) {
            throw new LockUnavailableException("", "Redis could not be reached or did not answer a PING", ex);
        }
        return since(start);
    }

    /**
     * Stops the watchdog and closes the release subscription, writing nothing more to Redis, as if the process had
     * died. Locks still held are not released: they expire at the end of their lease. Threads still waiting for a
     * lock stop with {@link IllegalStateException}; a fair queue place or write intent they kept lapses after the
     * waiter lease. Acquiring afterwards throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        this.closed = true;
        this.reconnectCheck.close();
        this.scheduler.shutdownNow();
        this.cleanUps.shutdownNow();
        this.subscriptions.signalAll(); // waiting threads see the service closed
        this.subscriptions.close();
    }

    private void cleanUp(Runnable task) {
        if (!this.closed) {
            this.cleanUps.execute(task);
        }
    }

    private byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        this.random.nextBytes(bytes);
        return bytes;
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

    /** One call's attempts at one lock: re-entering the owner's hold, or taking a new one. */
    private final class Acquisition {

        final String key;

        /** The lock's name for listeners and metrics. */
        final String name;

        final LockType type;

        final HoldKey holdKey;

        /** Whether the caller waits when refused, keeping a place in Redis if the type has one. */
        final boolean waiting;

        final boolean watchdog;

        final long leaseNanos;

        final String leaseMillis;

        /** The new hold this call would create; its owner token is made once, not per attempt. */
        private @Nullable Hold fresh;

        /** From the last failed attempt: the holder's remaining lease, or -1 when unknown. */
        long holderRemainingMillis = -1;

        /** From the last failed attempt: how long the restart grace holds back new grants, or -1 when it did not. */
        long graceLeftMillis = -1;

        Acquisition(String key, LockOptions options, boolean waiting) {
            this.key = key;
            this.name = options.nameFor(key);
            this.type = RedisLockService.this.types.get(options.mode());
            this.waiting = waiting;
            Object owner = options.owner();
            this.holdKey = new HoldKey(owner != null ? owner : Thread.currentThread(), key, options.mode());
            Duration lease = options.leaseTime();
            this.watchdog = (lease == null);
            this.leaseNanos = (lease == null) ? RedisLockService.this.watchdogLeaseNanos : lease.toNanos();
            this.leaseMillis = (lease == null) ? RedisLockService.this.watchdogLeaseMillis
                    : Long.toString(lease.toMillis());
        }

        /**
         * One try: re-enters the owner's hold if it is open, else takes a new hold. A re-entry only ever re-enters:
         * when the owner's hold is past its deadline, or gone in Redis, the hold is reported lost (its unreleased
         * handles learn it) and this call takes the lock anew, as a new hold with a new fencing token.
         */
        @Nullable RedisLockHandle attempt() {
            Hold current = RedisLockService.this.holds.get(this.holdKey);
            if (current != null && !current.isOver()) {
                if (!current.isValid()) {
                    lose(current, new LeaseLostException(this.key, "The lease of lock '" + this.key
                            + "' ran out before its owner acquired it again"));
                }
                else if (current.open()) {
                    RedisLockHandle handle = grant(current, true);
                    if (handle != null) {
                        return handle;
                    }
                    lose(current, new LeaseLostException(this.key, "Lock '" + this.key + "' was no longer held "
                            + "by its owner when the owner acquired it again: the lease was lost meanwhile"));
                }
            }
            return grant(freshHold(), false);
        }

        /**
         * The hold a new grant creates. Its owner token is made once per call, or shared with the owner's hold of the
         * other side of a read/write lock, so that the write holder may read and a lone reader may write.
         */
        Hold freshHold() {
            Hold hold = this.fresh;
            if (hold == null) {
                LockMode sharing = this.type.sharesOwnerTokenWith();
                Hold other = (sharing == null) ? null
                        : RedisLockService.this.holds.get(new HoldKey(this.holdKey.owner(), this.key, sharing));
                String ownerToken = (other != null && !other.isOver()) ? other.ownerToken
                        : HexFormat.of().formatHex(randomBytes(16));
                hold = new Hold(this.holdKey, this.type, this.type.releaseChannel(this.key), ownerToken);
                this.fresh = hold;
            }
            return hold;
        }

        /**
         * Gives up the place a waiting call kept in Redis. Best effort: a place that cannot be removed lapses by
         * itself within the waiter lease. A closed service writes nothing more, as if its process had died.
         */
        void leave() {
            Hold hold = this.fresh;
            if (!this.waiting || !this.type.keepsPlace() || hold == null || RedisLockService.this.closed) {
                return;
            }
            Uninterrupted.run(() -> {
                try {
                    if (this.type.leave(hold)) {
                        RedisLockService.this.subscriptions.signalLocal(hold.releaseChannel);
                    }
                }
                catch (DataAccessException ex) {
                    logger.debug("Could not leave the waiters of lock '" + this.key + "'; the place lapses", ex);
                }
            });
        }

        /** Asks Redis; null when refused (a re-entry: when the owner's hold is gone in Redis). */
        private @Nullable RedisLockHandle grant(Hold hold, boolean reentrant) {
            String holdId = hold.nextHoldId();
            long sentNanos = System.nanoTime();
            long reply;
            try {
                reply = this.type.acquire(hold,
                        new LockType.Grant(holdId, this.leaseMillis, this.watchdog, reentrant, this.waiting));
            }
            catch (DataAccessException ex) {
                closeReentry(hold, reentrant);
                throw failed(hold, holdId, ex);
            }
            this.graceLeftMillis = RestartGrace.refused(reply) ? RestartGrace.leftMillis(reply) : -1;
            if (reply <= 0) {
                this.holderRemainingMillis = (this.graceLeftMillis >= 0) ? this.graceLeftMillis : -reply - 1;
                closeReentry(hold, reentrant);
                return null;
            }
            long repliedNanos = System.nanoTime();
            if (repliedNanos - (sentNanos + this.leaseNanos) >= 0) {
                closeReentry(hold, reentrant);
                LockUnavailableException late = expiredOnArrival(hold, holdId,
                        Duration.ofNanos(repliedNanos - sentNanos));
                if (!this.waiting) {
                    throw late;
                }
                logger.debug(late.getMessage() + "; trying again");
                this.holderRemainingMillis = 0;
                return null;
            }
            ReplicaAcknowledgement acknowledgement = RedisLockService.this.replicaAcknowledgement;
            if (acknowledgement != null) {
                long acknowledged = acknowledgement.await(this.type.context.scripts());
                if (acknowledged < acknowledgement.replicas()) {
                    closeReentry(hold, reentrant);
                    throw notReplicated(hold, holdId, acknowledgement.shortfall(acknowledged));
                }
            }
            RedisLockHandle handle = new RedisLockHandle(RedisLockService.this, hold, holdId, this.name, reply,
                    sentNanos, this.watchdog, this.leaseNanos);
            hold.granted(handle, sentNanos, this.leaseNanos);
            if (hold.firstHandle == null) {
                hold.grantedAt = Instant.now();
                hold.firstHandle = handle;
            }
            if (!reentrant) {
                hold.open();
                RedisLockService.this.holds.merge(this.holdKey, hold, (old, mine) -> old.isOver() ? mine : old);
            }
            if (this.watchdog) {
                RedisLockService.this.watchdog.watch(hold);
            }
            return handle;
        }

        /** A re-entry that was counted open before its Redis call but not granted: counts it closed again. */
        private void closeReentry(Hold hold, boolean reentrant) {
            if (reentrant && hold.close()) {
                forget(hold);
            }
        }

        /**
         * Redis granted the lock, but its reply came after the lease had run out (a cold connection, a stalled
         * Redis): the lock may be someone else's by now, so the grant is undone. A waiting call tries again (a
         * re-entry if the grant still stands), a single attempt fails.
         */
        private LockUnavailableException expiredOnArrival(Hold hold, String holdId, Duration replyTime) {
            undo(hold, holdId);
            return new LockUnavailableException(this.key, "Redis granted lock '" + this.key + "' but its reply took "
                    + replyTime.toMillis() + " ms, longer than the lease of " + this.leaseMillis + " ms: the grant was "
                    + "undone, since the lock may already belong to someone else");
        }

        /** Too few replicas confirmed a grant: undo it, since a failover could hand the lock to someone else. */
        private LockUnavailableException notReplicated(Hold hold, String holdId, String shortfall) {
            LockUnavailableException failure = new LockUnavailableException(this.key,
                    "Lock '" + this.key + "' was granted but " + shortfall + "; the acquisition was undone");
            try { // Redis answers (WAIT did): undo before the caller hears of the failure
                this.type.release(hold, new LockType.Release(holdId, 0, this.watchdog, "0"));
            }
            catch (DataAccessException undoFailure) {
                failure.addSuppressed(undoFailure);
            }
            logger.warn(failure.getMessage());
            return failure;
        }

        /**
         * After a timeout, or an interrupt while the client awaited the reply, the script may have run: undo this
         * acquisition so that no lock outlives the failure. A refused connection never reached Redis, so it needs no
         * undo. An interrupt is reported as such, with the thread's flag left set.
         */
        private LockException failed(Hold hold, String holdId, DataAccessException cause) {
            boolean interrupted = Thread.currentThread().isInterrupted();
            if (interrupted || cause instanceof QueryTimeoutException) {
                undo(hold, holdId);
            }
            if (interrupted) {
                InterruptedException interrupt = new InterruptedException("interrupted during a Redis call");
                interrupt.initCause(cause);
                return new LockInterruptedException(this.key, interrupt);
            }
            return new LockUnavailableException(this.key,
                    "Redis could not be reached or did not answer while acquiring lock '" + this.key + "'", cause);
        }

        /**
         * Releases an acquisition Redis may have granted, off the caller's path: the caller learns of the failure at
         * once, not after another command timeout. A grant the undo misses expires with its lease.
         */
        private void undo(Hold hold, String holdId) {
            LockType.Release release = new LockType.Release(holdId, 0, this.watchdog, "0");
            RedisLockService.this.cleanUp(() -> {
                try {
                    hold.type.release(hold, release);
                }
                catch (DataAccessException undoFailure) {
                    logger.debug("Could not undo an acquisition of lock '" + this.key + "'; it expires with its lease",
                            undoFailure);
                }
            });
        }
    }

    /** Settings of a {@link RedisLockService}; each is checked when set, with a message naming it. */
    public static final class Builder {

        private final StringRedisTemplate redis;

        private String keyPrefix = "distlock";

        private Duration defaultWaitTime = Duration.ofSeconds(10);

        private Duration watchdogLease = Duration.ofSeconds(30);

        private @Nullable Duration renewalInterval;

        private @Nullable Duration tokenRetention;

        private Duration waiterLease = Duration.ofSeconds(6);

        private Duration restartGrace = Duration.ofSeconds(30);

        private EvictionPolicyCheck evictionPolicyCheck = EvictionPolicyCheck.WARN;

        private @Nullable ReplicaAcknowledgement replicaAcknowledgement;

        private @Nullable WaitStrategy waitStrategy;

        private boolean shardingProxy;

        private LockListener listener = new LockListener() {
        };

        private Builder(StringRedisTemplate redis) {
            this.redis = redis;
        }

        /** The prefix of every Redis key and channel of the service's locks. Default {@code distlock}. */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = LockKeys.checkPrefix(keyPrefix);
            return this;
        }

        /** How long {@code acquire} waits when the options name no wait time. Default 10 seconds. */
        public Builder defaultWaitTime(Duration defaultWaitTime) {
            requireNonNull(defaultWaitTime, "defaultWaitTime");
            if (defaultWaitTime.isNegative()) {
                throw new IllegalArgumentException("defaultWaitTime must not be negative, but was " + defaultWaitTime);
            }
            this.defaultWaitTime = defaultWaitTime;
            return this;
        }

        /**
         * The lease the watchdog keeps alive for locks taken without a fixed lease: how long such a lock survives its
         * holder's crash. Default 30 seconds.
         */
        public Builder watchdogLease(Duration watchdogLease) {
            requireNonNull(watchdogLease, "watchdogLease");
            if (watchdogLease.compareTo(LockOptions.MAX_LEASE_TIME) > 0 || watchdogLease.toMillis() < 1) {
                throw new IllegalArgumentException("watchdogLease must be between 1ms and "
                        + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + watchdogLease);
            }
            this.watchdogLease = watchdogLease;
            return this;
        }

        /** How often the watchdog renews leases; shorter than the lease. Default a third of the watchdog lease. */
        public Builder renewalInterval(Duration renewalInterval) {
            requireNonNull(renewalInterval, "renewalInterval");
            if (renewalInterval.compareTo(Duration.ofMillis(1)) < 0) { // also rejects negatives, without overflow
                throw new IllegalArgumentException("renewalInterval must be at least 1ms, but was " + renewalInterval);
            }
            this.renewalInterval = renewalInterval;
            return this;
        }

        /**
         * How long a freed lock keeps its hash (its last fencing token and who released it), and a released reader its
         * marker, so that a release retried after a lost reply is recognised, not reported as a lost lease. Fencing
         * tokens follow Redis's clock and need it only if that clock steps back: they keep increasing across a step
         * back shorter than this. Default: the release's retry window, three times the Lettuce command timeout plus
         * one second (at least 10 s; 5 minutes for other clients), about 181 s with Lettuce's default 60 s timeout.
         * Each freed key costs about 260 bytes of Redis memory for this long. At most 7 days.
         */
        public Builder tokenRetention(Duration tokenRetention) {
            requireNonNull(tokenRetention, "tokenRetention");
            if (tokenRetention.compareTo(Duration.ofSeconds(1)) < 0
                    || tokenRetention.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
                throw new IllegalArgumentException("tokenRetention must be between 1s and "
                        + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + tokenRetention);
            }
            this.tokenRetention = tokenRetention;
            return this;
        }

        /**
         * How long a waiter's place in Redis outlives a waiter that died without giving it up: a waiting
         * {@link LockMode#WRITE} writer's intent, which holds back new readers, and a {@link LockMode#FAIR} waiter's
         * place in the queue, which holds back the waiters behind it. Waiters refresh their place every third of it.
         * Default 6 seconds.
         */
        public Builder waiterLease(Duration waiterLease) {
            requireNonNull(waiterLease, "waiterLease");
            if (waiterLease.compareTo(LockOptions.MAX_LEASE_TIME) > 0 || waiterLease.toMillis() < 100) {
                throw new IllegalArgumentException("waiterLease must be between 100ms and "
                        + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + waiterLease);
            }
            this.waiterLease = waiterLease;
            return this;
        }

        /**
         * After every grant and every renewal, waits until {@code replicas} replicas acknowledged the write (Redis
         * {@code WAIT}), at most {@code timeout}. A grant too few replicas confirm is undone and fails with
         * {@link LockUnavailableException}; a renewal too few confirm is reported as a failed renewal and does not move
         * the lease deadline, so a lock that stays unreplicated is lost at its deadline. This keeps a lock through a
         * Sentinel failover to a replica that acknowledged it, at the price of a replication round trip per grant and
         * renewal; while it waits, other commands on the shared connection wait behind it, so keep {@code timeout}
         * short and below the client's command timeout. Off by default; not available with Redis Cluster.
         */
        public Builder replicaAcknowledgements(int replicas, Duration timeout) {
            this.replicaAcknowledgement = new ReplicaAcknowledgement(replicas, timeout);
            return this;
        }

        /**
         * How waiters learn that a lock held by another process was released: {@link WaitStrategy#PUBSUB} (the
         * default) or {@link WaitStrategy#POLLING} (the default with {@link #shardingProxy(boolean)}).
         */
        public Builder waitStrategy(WaitStrategy waitStrategy) {
            requireNonNull(waitStrategy, "waitStrategy");
            this.waitStrategy = waitStrategy;
            return this;
        }

        /**
         * Whether Redis is reached through a sharding proxy such as Twemproxy, which sends each script to the shard of
         * its first key and passes no pub/sub: waiters then poll ({@link WaitStrategy#POLLING}), each renewal script
         * call covers the keys of one lock only, and {@link RedisLockService#verifyAccess()} opens no subscription.
         * Every key of one lock shares a hash tag, so the proxy must hash by the tag ({@code hash_tag: "{}"}). Not
         * with {@link #replicaAcknowledgements}, a {@link WaitStrategy#PUBSUB} wait strategy, or a Redis Cluster
         * connection. Default false.
         */
        public Builder shardingProxy(boolean shardingProxy) {
            this.shardingProxy = shardingProxy;
            return this;
        }

        /**
         * How long a Redis process grants no new lock after it started: a Redis that restarted without its data (no
         * persistence) has forgotten leases that may still run in their holders, so it must not grant until the
         * longest of them has ended. Redis decides from its own uptime, so this covers clients that never saw the old
         * process; it cannot tell a restart from a first start, so a new Redis waits too. Set it to at least the
         * longest lease any client of this Redis grants (the watchdog lease for watchdog locks). Refused grants wait
         * (a waiting acquisition) or fail with {@link RestartGraceException}. {@link Duration#ZERO} turns it off.
         * Re-entries and renewals are never held back. Default 30 seconds, the default watchdog lease.
         */
        public Builder restartGrace(Duration restartGrace) {
            requireNonNull(restartGrace, "restartGrace");
            if (restartGrace.isNegative() || restartGrace.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
                throw new IllegalArgumentException("restartGrace must be between 0 and "
                        + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + restartGrace);
            }
            this.restartGrace = restartGrace;
            return this;
        }

        /**
         * What to do when Redis's {@code maxmemory-policy} may evict held locks (anything but {@code noeviction}),
         * checked when the service is built (if Redis answers) and whenever the connection comes back. Not checked
         * behind a {@link #shardingProxy(boolean) sharding proxy}, which refuses INFO. Default
         * {@link EvictionPolicyCheck#WARN}.
         */
        public Builder evictionPolicyCheck(EvictionPolicyCheck evictionPolicyCheck) {
            requireNonNull(evictionPolicyCheck, "evictionPolicyCheck");
            this.evictionPolicyCheck = evictionPolicyCheck;
            return this;
        }

        /** Receives lock events; see {@link LockListener} for its threading rules. */
        public Builder listener(LockListener listener) {
            requireNonNull(listener, "listener");
            this.listener = listener;
            return this;
        }

        /**
         * Builds the service and starts its watchdog thread.
         *
         * @throws IllegalStateException when {@link #evictionPolicyCheck} is {@link EvictionPolicyCheck#FAIL} and Redis's
         * {@code maxmemory-policy} may evict held locks
         * @throws IllegalArgumentException when the renewal interval is not shorter than the watchdog lease, or the
         * settings contradict each other (see {@link #shardingProxy(boolean)})
         */
        public RedisLockService build() {
            if (this.renewalInterval != null && this.renewalInterval.compareTo(this.watchdogLease) >= 0) {
                throw new IllegalArgumentException("renewalInterval (" + this.renewalInterval
                        + ") must be shorter than watchdogLease (" + this.watchdogLease + ")");
            }
            if (this.shardingProxy && this.waitStrategy == WaitStrategy.PUBSUB) {
                throw new IllegalArgumentException("waitStrategy PUBSUB does not work behind a sharding proxy, which "
                        + "passes no pub/sub; use POLLING");
            }
            if (this.shardingProxy && this.replicaAcknowledgement != null) {
                throw new IllegalArgumentException("replicaAcknowledgements does not work behind a sharding proxy, "
                        + "which passes no WAIT");
            }
            return new RedisLockService(this);
        }

        private WaitStrategy waitStrategy() {
            if (this.waitStrategy != null) {
                return this.waitStrategy;
            }
            return this.shardingProxy ? WaitStrategy.POLLING : WaitStrategy.PUBSUB;
        }

        private static void requireNonNull(@Nullable Object value, String name) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must not be null");
            }
        }
    }
}
