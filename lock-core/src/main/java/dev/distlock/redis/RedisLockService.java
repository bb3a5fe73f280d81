package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.HeldLock;
import dev.distlock.LockInspection;
import dev.distlock.LockPermissionException;
import dev.distlock.LockService;
import dev.distlock.LockStatus;
import dev.distlock.LockUnavailableException;
import dev.distlock.internal.AbstractLockService;
import dev.distlock.internal.Durations;

/**
 * A {@link LockService} on Redis, through a Spring Data Redis {@link StringRedisTemplate}.
 *
 * <p>A lock cycle costs two round trips: one script to acquire, one to release (which also publishes the release
 * when someone elsewhere waits). Callers of one service waiting for the same exclusive lock, blocking or through
 * {@link #async()}, queue locally, only the first asking Redis, and a releasing holder hands the lock straight to the
 * next in one script call ({@link RedisLockServiceBuilder#handOffLimit}), so a hot key costs one round trip per
 * hand-off.
 * One daemon thread per service renews watchdog leases in batches, and another closes idle subscriptions, so that
 * pub/sub never delays renewal; waiting threads share one pub/sub connection, or poll ({@link WaitStrategy}).
 * A third, started on first need, undoes acquisitions whose outcome a failure left unknown. {@link #close()} stops
 * them all; locks still held then expire at the end of their lease.
 *
 * <p>It works on a standalone Redis, through Sentinel, and on a Redis Cluster (a Lettuce connection factory with a
 * cluster configuration): every key of one lock is in one slot, renewals are batched per slot, and releases use
 * sharded pub/sub when Redis 7 accepts it. Behind a sharding proxy such as Twemproxy, set
 * {@link RedisLockServiceBuilder#shardingProxy(boolean)}.
 *
 * <pre>{@code
 * RedisLockService locks = RedisLockService.builder(stringRedisTemplate).keyPrefix("orders").build();
 * }</pre>
 */
public final class RedisLockService extends AbstractLockService implements LockInspection, AutoCloseable {

    /**
     * The key the start-up permission check takes a probe lock of every type on and then deletes (under the service's
     * key prefix); do not use it as a lock key of your own.
     */
    public static final String ACCESS_CHECK_KEY = AccessCheck.PROBE_KEY;

    /**
     * The data layout this version reads and writes (docs/data-layout.md). A call that meets data of another layout
     * fails with {@link dev.distlock.LockLayoutException} naming both, and grants nothing.
     */
    public static final int DATA_LAYOUT = LayoutRefusal.OWN;

    private final LockEngine engine;

    private final RedisLockBackend backend;

    private final LockStatusReader reader;

    /** Behind a sharding proxy (Twemproxy), which does not pass TIME on: no inspection (see {@link #inspect}). */
    private final boolean shardingProxy;

    RedisLockService(RedisLockServiceBuilder settings) {
        this(settings, new LockEngine(settings));
    }

    private RedisLockService(RedisLockServiceBuilder settings, LockEngine engine) {
        this(settings, engine, new RedisLockBackend(engine.calls, engine.async, engine::isClosed,
                settings.maxKeyLength));
    }

    private RedisLockService(RedisLockServiceBuilder settings, LockEngine engine, RedisLockBackend backend) {
        super(settings.listener, settings.defaultWaitTime, backend);
        this.engine = engine;
        this.backend = backend;
        this.reader = new LockStatusReader(settings.redis, this.engine.keys, this.engine.holds::values);
        this.shardingProxy = settings.shardingProxy;
    }

    /** Starts building a service on the given template (any connection factory; Lettuce is the tested one). */
    public static RedisLockServiceBuilder builder(StringRedisTemplate redis) {
        if (redis == null) {
            throw new IllegalArgumentException("redis template must not be null");
        }
        return new RedisLockServiceBuilder(redis);
    }

    /**
     * Checks once that Redis answers and that its user may run everything the lock needs, by taking, renewing and
     * releasing a probe lock of every type (key {@code distlock-access-check}), inspecting it and opening the release
     * subscription
     * (not with {@link WaitStrategy#POLLING}, which needs none).
     * Call it at start-up so that a missing permission is reported then rather than at the first lock. It also reads
     * the user's ACL: for a user granted every command, key and channel ({@code +@all ~* &*}) the lock scripts then
     * skip their ACL guard, the check before a script's first write that a permission revoked at run time fails it
     * whole (2–14% of a script's Redis time); the first permission refusal puts the guard back for good. Without this
     * call, and for any other user, the guard stays on.
     *
     * @throws IllegalStateException when Redis refuses a command for lack of permission; the message names the ACL
     * rules to grant
     * @throws LockUnavailableException when Redis cannot be reached
     */
    public void verifyAccess() {
        AccessCheck.run(this.engine.keys.prefix(), this.engine.types, this.engine.subscriptions,
                this.engine.newToken(16)); // a probe's token: its keys are deleted, and it starts no instance record
        if (this.shardingProxy) {
            return; // no inspection behind a sharding proxy
        }
        try {
            this.reader.read(ACCESS_CHECK_KEY); // what inspect reads
        }
        catch (LockPermissionException ex) {
            throw new IllegalStateException("The Redis user may not read what inspect reads (" + ex.getMessage()
                    + "). Grant it with: ACL SETUSER <user> " + requiredAcl(), ex);
        }
    }

    /** The ACL rules (key and channel patterns and commands) a Redis user needs for this service's locks. */
    public String requiredAcl() {
        return AccessCheck.requiredAcl(this.engine.keys.prefix());
    }

    @Override
    public int renewingCount() {
        return this.engine.watchdog.watchedCount();
    }

    @Override
    public Duration renewalInterval() {
        return Duration.ofNanos(this.engine.watchdog.intervalNanos());
    }

    @Override
    public int overdueRenewalCount() {
        return this.engine.watchdog.overdueCount();
    }

    @Override
    public List<HeldLock> heldLocks() {
        return this.engine.holds.snapshot();
    }

    /**
     * Reads one key's locks from Redis; see {@link LockInspection#inspect(String)}. Each holder's instance comes from
     * its owner token, which begins with the id of the instance that made it, and from that instance's record
     * ({@code <prefix>:instance:<id>}), which every service writes at start and refreshes every renewal interval.
     * Plain reads (about a dozen, more per reader, semaphore holder or queued waiter), on the calling thread, with the
     * client's command timeout.
     *
     * @throws LockPermissionException when the Redis user may not read the lock's keys
     * @throws UnsupportedOperationException behind a sharding proxy ({@link RedisLockServiceBuilder#shardingProxy}):
     * Twemproxy does not pass on the TIME an inspection reads; read the shard with redis-cli instead
     */
    @Override
    public List<LockStatus> inspect(String key) {
        String checked = this.backend.checkKey(key);
        if (this.shardingProxy) {
            throw new UnsupportedOperationException("inspect() is not available behind a sharding proxy (Twemproxy "
                    + "does not pass on TIME); read lock '" + key + "' on its shard with redis-cli (docs/observability.md)");
        }
        return this.reader.read(checked);
    }

    /** This service's instance id: the start of each owner token it makes, and the name of its record in Redis. */
    public String instanceId() {
        return this.engine.instanceId;
    }

    /** Sends Redis a PING through this service's connection; see {@link LockInspection#ping()}. */
    @Override
    public Duration ping() {
        long start = System.nanoTime();
        try {
            this.engine.redis.execute((RedisCallback<String>) RedisConnection::ping);
        }
        catch (DataAccessException ex) {
            throw new LockUnavailableException("", "Redis could not be reached or did not answer a PING", ex);
        }
        return Durations.since(start);
    }

    /**
     * Stops the watchdog and closes the release subscription, writing nothing more to Redis, as if the process had
     * died. Locks still held are not released: they expire at the end of their lease. Threads still waiting for a
     * lock stop with {@link IllegalStateException}; a fair queue place or write intent they kept lapses after the
     * waiter lease. Acquiring afterwards throws {@link IllegalStateException}.
     */
    @Override
    public void close() {
        this.engine.close();
    }
}
