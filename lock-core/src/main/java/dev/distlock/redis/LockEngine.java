package dev.distlock.redis;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.KeyText;
import dev.distlock.LockMode;
import dev.distlock.internal.DaemonThreads;
import dev.distlock.internal.Uninterrupted;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseNotifier;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.redis.lease.ReplicaAcknowledgement;
import dev.distlock.redis.script.LockKeys;
import dev.distlock.redis.script.LockScripts;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.script.LockTypes;
import dev.distlock.redis.script.RestartGrace;
import dev.distlock.redis.script.ShardedPubSub;
import dev.distlock.redis.wakeup.ChannelSubscriber;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;

/**
 * The parts of one {@link RedisLockService}, built from its settings: the lock types and their scripts, the holds, the
 * watchdog, the release subscriptions and the threads they run on (one renews, one closes idle subscriptions, one,
 * started on first need, undoes acquisitions whose outcome a failure left unknown).
 */
final class LockEngine {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    /** At most this many undos wait while Redis does not answer; beyond that a failed grant expires with its lease. */
    private static final int CLEAN_UP_QUEUE = 10_000;

    final LockKeys keys;

    /** This service's id: 16 hex digits, the start of each owner token it makes (see {@link InstanceRecord}). */
    final String instanceId;

    private final InstanceRecord record;

    final Map<LockMode, LockType> types;

    final StringRedisTemplate redis;

    final LeaseWatchdog watchdog;

    final ReleaseSubscriptions subscriptions;

    final Holds holds;

    /** Each key's local waiters and holder, for the exclusive locks this service waits for. */
    private final LocalQueues queues = new LocalQueues();

    /** What each lock call uses. */
    final CallParts calls;

    /** What non-blocking calls run on. */
    final AsyncThreads async;

    private final SecureRandom random = new SecureRandom();

    private final ScheduledThreadPoolExecutor scheduler;

    private final LeaseNotifier notifier;

    private final ThreadPoolExecutor cleanUps;

    private final ReconnectCheck reconnectCheck;

    private volatile boolean closed;

    LockEngine(RedisLockServiceBuilder settings) {
        // a sharding proxy such as Twemproxy drops the connection on INFO: check the shards' policy yourself there
        EvictionGuard evictionGuard = new EvictionGuard(settings.redis,
                settings.shardingProxy ? EvictionPolicyCheck.OFF : settings.evictionPolicyCheck);
        evictionGuard.check(true);
        this.keys = new LockKeys(settings.keyPrefix);
        this.redis = settings.redis;
        ReplicaAcknowledgementDefault.Decision replicas = settings.replicaDecision;
        ReplicaAcknowledgement acknowledgement = replicas.acknowledgement();
        if (replicas.warn()) {
            logger.warn(replicas.guarantee());
        }
        else {
            logger.info(replicas.guarantee()); // which failover guarantee this configuration gives
        }
        String clientId = newToken(8);
        this.instanceId = clientId;
        ShardedPubSub sharded = new ShardedPubSub(settings.redis, this.keys.releaseChannel(AccessCheck.PROBE_KEY));
        sharded.decide(); // now, on the building thread: later the first use may be on a Lettuce I/O thread
        RedisConnectionFactory connectionFactory = settings.redis.getRequiredConnectionFactory();
        boolean cluster = connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware();
        Duration retention = (settings.tokenRetention != null) ? settings.tokenRetention
                : TokenRetention.forRetries(connectionFactory, ReleaseRetries.ATTEMPTS);
        RestartGrace grace = new RestartGrace(settings.restartGrace, settings.keyPrefix, cluster);
        // on a cluster, each grant's and renewal's WAIT must run on the connection of the master that ran it
        LockScripts scripts = new LockScripts(settings.redis, grace, (cluster && acknowledgement != null)
                ? acknowledgement.onCluster(settings.redis) : null, settings.callTimeout,
                !settings.shardingProxy && !evictionGuard.unreadable()); // nor SCRIPT LOAD behind a proxy
        this.types = LockTypes.all(new LockType.Context(this.keys, scripts, clientId, retention, settings.waiterLease,
                sharded));
        checkTopology(settings, cluster);
        this.scheduler = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("distlock-watchdog-"));
        this.scheduler.setRemoveOnCancelPolicy(true);
        this.cleanUps = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(CLEAN_UP_QUEUE), DaemonThreads.named("distlock-cleanup-"),
                (task, executor) -> logger.warn("Too many failed acquisitions to undo; the lock of one expires "
                        + "with its lease"));
        Duration interval = (settings.renewalInterval != null) ? settings.renewalInterval
                : settings.watchdogLease.dividedBy(3);
        LeaseWatchdog.Batching batching = cluster ? LeaseWatchdog.Batching.BY_SLOT
                : settings.shardingProxy ? LeaseWatchdog.Batching.BY_LOCK : LeaseWatchdog.Batching.BY_TYPE;
        this.holds = new Holds(settings.listener, settings.logKeys);
        this.notifier = new LeaseNotifier(settings.listener); // no listener or callback runs on the watchdog's thread
        this.watchdog = new LeaseWatchdog(this.scheduler, settings.watchdogLease.toNanos(), interval.toNanos(),
                batching, this.notifier, (hold, reason) -> this.holds.lose(hold, reason, this.notifier::report),
                acknowledgement);
        this.holds.watchedBy(this.watchdog);
        this.record = new InstanceRecord(settings.redis, this.keys.prefix(), clientId, settings.applicationName,
                interval.toNanos(), this.holds::values);
        this.scheduler.scheduleWithFixedDelay(() -> this.record.schedule(this::cleanUpIfRoom), interval.toNanos(),
                interval.toNanos(), TimeUnit.NANOSECONDS); // the watchdog's thread only queues it: never delays renewal
        this.reconnectCheck = new ReconnectCheck(settings.redis, this.holds::values, this.holds::lose, this::cleanUp,
                evictionGuard);
        this.subscriptions = new ReleaseSubscriptions(connectionFactory,
                (settings.waitStrategy() == WaitStrategy.POLLING) ? null
                        : listener -> ChannelSubscriber.create(connectionFactory, sharded, listener),
                this.keys.prefix() + ":client:" + clientId, clientId, settings.subscriptionLinger.toNanos());
        this.async = new AsyncThreads(this::cleanUp);
        GrantFailures.Parts failures = new GrantFailures.Parts(this.holds, this::cleanUp, this::freed);
        // a hand-off waits for the replica acknowledgements a grant waits for
        Releases releases = new Releases(this.holds, this.watchdog, this.subscriptions, settings.listener, this.queues,
                new HandOffs(failures, acknowledgement, this.queues, this.holds, this.watchdog,
                        settings.maxHandOffs, settings.maxHandOffTime.toNanos(), settings.listener),
                this.async::timer);
        WaitParts waits = new WaitParts(this.subscriptions, settings.waiterLease.toNanos() / 3, this::isClosed);
        this.calls = new CallParts(this.types, this.holds, this.queues, releases, this.watchdog, acknowledgement,
                settings.watchdogLease.toNanos(), this::newOwnerToken, failures, this::leavePlace, waits);
    }

    private static void checkTopology(RedisLockServiceBuilder settings, boolean cluster) {
        if (cluster && settings.shardingProxy) {
            throw new IllegalArgumentException("shardingProxy is for a proxy in front of Redis, not for a Redis "
                    + "Cluster connection");
        }
    }

    /** A random token of {@code bytes} bytes, in hex. */
    String newToken(int bytes) {
        byte[] random = new byte[bytes];
        this.random.nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** A new owner token: this service's instance id, then 8 random bytes in hex; 32 characters as before. */
    private String newOwnerToken() {
        this.record.start(this::cleanUpIfRoom); // the first one writes the record
        return this.instanceId + newToken(8);
    }

    /** Runs a task on the clean-up thread if its queue has room, else drops it; nothing once closed. */
    private void cleanUpIfRoom(Runnable task) {
        if (!this.closed && this.cleanUps.getQueue().remainingCapacity() > 0) {
            this.cleanUps.execute(task);
        }
    }

    /** Runs clean-up off the caller's path and off the watchdog's thread; nothing once closed. */
    private void cleanUp(Runnable task) {
        if (!this.closed) {
            this.cleanUps.execute(task);
        }
    }

    /**
     * Gives up the place a waiter kept in Redis (a fair queue place, a write intent). Best effort: a place that cannot
     * be removed lapses by itself within the waiter lease. A closed service writes nothing more, as if its process had
     * died.
     */
    private void leavePlace(Hold hold) {
        if (this.closed) {
            return;
        }
        Uninterrupted.run(() -> {
            try {
                if (hold.type().leave(hold)) {
                    this.subscriptions.signalLocal(hold.releaseChannel());
                }
            }
            catch (DataAccessException ex) {
                logger.debug("Could not leave the waiters of lock " + KeyText.quote(hold.key()) + "; the place lapses",
                        ex);
            }
        });
    }

    /**
     * A lock of this service was freed other than by a hand-off (a release, an undone grant): the local queue's run
     * ends, and this service's waiters are woken, since the release message it publishes carries this service's id
     * and its own subscription drops it.
     */
    private void freed(Hold hold) {
        this.queues.released(hold);
        this.subscriptions.signalLocal(hold.releaseChannel(), hold.type().releaseWakes());
    }

    boolean isClosed() {
        return this.closed;
    }

    /**
     * Stops every thread and closes the subscription; writes nothing more to Redis but releases. Every waiting call,
     * blocking or not, ends with {@link IllegalStateException}.
     */
    void close() {
        this.closed = true;
        this.async.close();
        this.reconnectCheck.close();
        this.scheduler.shutdownNow();
        this.notifier.close();
        this.cleanUps.shutdownNow();
        endWaits();
        this.subscriptions.close();
    }

    /**
     * close()'s part for the waiting calls, once its threads are stopped: marks the service closed (again) and wakes
     * every waiting call, each then ending with {@link IllegalStateException} and releasing a lock handed to it
     * meanwhile. The model check (LocalQueueModelCheckTest) runs it alone, as it cannot follow the threads' shutdown.
     */
    void endWaits() {
        this.closed = true;
        this.subscriptions.signalAll(); // waiting threads see the service closed
        this.async.closePending(); // whatever their timer would have run next is gone
    }
}
