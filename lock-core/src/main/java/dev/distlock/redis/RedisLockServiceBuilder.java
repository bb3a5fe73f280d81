package dev.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockEventListener;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.RestartGraceException;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.script.LockKeys;

/** Settings of a {@link RedisLockService}; each is checked when set, with a message naming it. */
public final class RedisLockServiceBuilder {

    /** Default {@link #keyPrefix}. */
    public static final String DEFAULT_KEY_PREFIX = "distlock";

    /** Default {@link #defaultWaitTime}. */
    public static final Duration DEFAULT_WAIT_TIME = Duration.ofSeconds(10);

    /** Default {@link #watchdogLease}. */
    public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);

    /** Default {@link #restartGrace}: the default watchdog lease. */
    public static final Duration DEFAULT_RESTART_GRACE = DEFAULT_WATCHDOG_LEASE;

    /** Default {@link #callTimeout}. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(2);

    /** Default {@link #evictionPolicyCheck}. */
    public static final EvictionPolicyCheck DEFAULT_EVICTION_POLICY_CHECK = EvictionPolicyCheck.WARN;

    /** Default {@link #logKeys}. */
    public static final boolean DEFAULT_LOG_KEYS = true;

    /** Default {@link #shardingProxy}. */
    public static final boolean DEFAULT_SHARDING_PROXY = false;

    /** {@link #replicaAcknowledgements}'s default replicas: one where the topology has replicas, else none. */
    public static final int REPLICAS_BY_TOPOLOGY = -1;

    /** Default timeout of {@link #replicaAcknowledgements}. */
    public static final Duration DEFAULT_REPLICA_ACKNOWLEDGEMENT_TIMEOUT = Duration.ofMillis(500);

    /** Default hand-offs in a row of {@link #handOffLimit}. */
    public static final int DEFAULT_MAX_HAND_OFFS = 16;

    /** Default longest run of hand-offs of {@link #handOffLimit}. */
    public static final Duration DEFAULT_MAX_HAND_OFF_TIME = Duration.ofMillis(10);

    final StringRedisTemplate redis;
    String keyPrefix = DEFAULT_KEY_PREFIX;
    Duration defaultWaitTime = DEFAULT_WAIT_TIME;
    Duration watchdogLease = DEFAULT_WATCHDOG_LEASE;
    @Nullable Duration renewalInterval;
    @Nullable Duration tokenRetention;
    Duration waiterLease = Duration.ofSeconds(6);
    /** How long a release subscription nobody waits on stays open (hot keys do not churn); not a public setting. */
    Duration subscriptionLinger = Duration.ofSeconds(10);
    Duration restartGrace = DEFAULT_RESTART_GRACE;
    Duration callTimeout = DEFAULT_CALL_TIMEOUT;
    EvictionPolicyCheck evictionPolicyCheck = DEFAULT_EVICTION_POLICY_CHECK;
    /** Decided in {@link #build()} from {@link #replicas}: the acknowledgement and the guarantee it gives. */
    ReplicaAcknowledgementDefault.Decision replicaDecision = new ReplicaAcknowledgementDefault.Decision(null, "", false);
    private int replicas = REPLICAS_BY_TOPOLOGY;
    private Duration replicaTimeout = DEFAULT_REPLICA_ACKNOWLEDGEMENT_TIMEOUT;
    private @Nullable WaitStrategy waitStrategy;
    boolean logKeys = DEFAULT_LOG_KEYS;
    int maxKeyLength = LockService.MAX_KEY_LENGTH;
    boolean shardingProxy = DEFAULT_SHARDING_PROXY;
    int maxHandOffs = DEFAULT_MAX_HAND_OFFS;
    Duration maxHandOffTime = DEFAULT_MAX_HAND_OFF_TIME;
    LockEventListener listener = Listeners.NONE;
    @Nullable String applicationName;

    RedisLockServiceBuilder(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** The prefix of every Redis key and channel of the service's locks. Default {@code distlock}. */
    public RedisLockServiceBuilder keyPrefix(String keyPrefix) {
        this.keyPrefix = LockKeys.checkPrefix(keyPrefix);
        return this;
    }

    /**
     * The longest key, in characters, the service accepts; a longer one fails at the call with
     * {@link IllegalArgumentException} before anything reaches Redis. A freed lock keeps about 230 bytes plus its
     * key's length in Redis for the {@link #tokenRetention token retention}, so a caller who controls keys controls
     * that memory: lower this when keys come from outside. From 1 to {@value LockService#MAX_KEY_LENGTH} (the
     * default).
     */
    public RedisLockServiceBuilder maxKeyLength(int maxKeyLength) {
        this.maxKeyLength = LockKeys.checkMaxKeyLength(maxKeyLength);
        return this;
    }

    /** How long {@code acquire} waits when the options name no wait time. Default 10 seconds. */
    public RedisLockServiceBuilder defaultWaitTime(Duration defaultWaitTime) {
        this.defaultWaitTime = BuilderChecks.defaultWaitTime(defaultWaitTime);
        return this;
    }

    /**
     * The lease the watchdog keeps alive for locks taken without a fixed lease: how long such a lock survives its
     * holder's crash. Default 30 seconds.
     */
    public RedisLockServiceBuilder watchdogLease(Duration watchdogLease) {
        this.watchdogLease = BuilderChecks.watchdogLease(watchdogLease);
        return this;
    }

    /** How often the watchdog renews leases; shorter than the lease. Default a third of the watchdog lease. */
    public RedisLockServiceBuilder renewalInterval(Duration renewalInterval) {
        this.renewalInterval = BuilderChecks.renewalInterval(renewalInterval);
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
    public RedisLockServiceBuilder tokenRetention(Duration tokenRetention) {
        this.tokenRetention = BuilderChecks.tokenRetention(tokenRetention);
        return this;
    }

    /**
     * How long a waiter's place in Redis outlives a waiter that died without giving it up: a waiting
     * {@link LockMode#WRITE} writer's intent, which holds back new readers, and a {@link LockMode#FAIR} waiter's
     * place in the queue, which holds back the waiters behind it. Waiters refresh their place every third of it.
     * Default 6 seconds.
     */
    public RedisLockServiceBuilder waiterLease(Duration waiterLease) {
        this.waiterLease = BuilderChecks.waiterLease(waiterLease);
        return this;
    }

    /**
     * After every grant, hand-off and renewal, waits until {@code replicas} replicas acknowledged the write (Redis
     * {@code WAIT} on the grant's own connection), at most {@code timeout}, before the caller, blocking or not, is
     * told. A grant too few replicas confirm is undone and fails with {@link LockUnavailableException} (a hand-off's
     * waiter waits on); a renewal too few confirm is reported as a failed renewal and does not move the lease
     * deadline, so a lock that stays unreplicated is lost at its deadline. This keeps a lock through a Sentinel or
     * Cluster failover to a replica that acknowledged it, at the price of a replication round trip per grant and
     * renewal; while it waits, other commands on the shared connection (on a Redis Cluster: to that master) wait
     * behind it, so keep {@code timeout} short and below the client's command timeout. On a Redis Cluster {@code
     * replicas} counts the replicas of the lock's own master, and a master demoted while it was unreachable cannot
     * keep a grant its former replica did not acknowledge. {@code replicas} 0 turns it off; {@link
     * #REPLICAS_BY_TOPOLOGY} (-1, the default) asks one replica where the topology has replicas to fail over to (a
     * Sentinel-managed master, a Cluster whose every master has a replica, a master reporting connected replicas
     * when the service is built), else none. {@code timeout} is from 1 ms to 1 minute;
     * default 500 ms. Needs a Lettuce factory's shared native connection ({@code shareNativeConnection=true}, the
     * default): {@link #build()} refuses explicit replicas without it. The service logs at INFO which guarantee it
     * gives.
     */
    public RedisLockServiceBuilder replicaAcknowledgements(int replicas, Duration timeout) {
        BuilderChecks.replicaAcknowledgements(replicas, timeout);
        this.replicas = replicas;
        this.replicaTimeout = timeout;
        return this;
    }

    /**
     * How waiters learn that a lock held by another process was released: {@link WaitStrategy#PUBSUB} (the
     * default) or {@link WaitStrategy#POLLING} (the default with {@link #shardingProxy(boolean)}).
     */
    public RedisLockServiceBuilder waitStrategy(WaitStrategy waitStrategy) {
        this.waitStrategy = BuilderChecks.nonNull(waitStrategy, "waitStrategy");
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
    public RedisLockServiceBuilder shardingProxy(boolean shardingProxy) {
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
    public RedisLockServiceBuilder restartGrace(Duration restartGrace) {
        this.restartGrace = BuilderChecks.restartGrace(restartGrace);
        return this;
    }

    /**
     * How long a lock call (a grant, a release, a hand-off) waits for Redis's answer before it fails with
     * {@link LockUnavailableException}, whatever the Lettuce client's command timeout, which still applies when it is
     * the shorter; a grant whose answer did not come is undone in the background. Renewals, PING and the startup
     * checks keep the client's timeout. Applies with a Lettuce connection factory. From 1 ms to 1 hour; default 2
     * seconds.
     */
    public RedisLockServiceBuilder callTimeout(Duration callTimeout) {
        this.callTimeout = BuilderChecks.callTimeout(callTimeout);
        return this;
    }

    /**
     * What to do when Redis's {@code maxmemory-policy} may evict held locks (anything but {@code noeviction}),
     * checked when the service is built (if Redis answers) and whenever the connection comes back. Not checked
     * behind a {@link #shardingProxy(boolean) sharding proxy}, which refuses INFO. Default
     * {@link EvictionPolicyCheck#WARN}.
     */
    public RedisLockServiceBuilder evictionPolicyCheck(EvictionPolicyCheck evictionPolicyCheck) {
        this.evictionPolicyCheck = BuilderChecks.nonNull(evictionPolicyCheck, "evictionPolicyCheck");
        return this;
    }

    /**
     * Whether log lines name a lock by its key (true, the default) or only by its {@linkplain LockOptions#withName
     * name}, for keys that hold user ids or e-mail addresses. Exceptions given to the caller always hold the key.
     */
    public RedisLockServiceBuilder logKeys(boolean logKeys) {
        this.logKeys = logKeys;
        return this;
    }

    /**
     * Bounds runs of local hand-offs. Callers of this service waiting for the same exclusive lock, blocking or
     * non-blocking ({@code async()}), queue in one local queue, and only the first of them competes in Redis; a holder
     * releasing its last hold with {@code release()} hands the lock straight to the next of them, in one script call that ends its hold and grants a new one (new owner token, higher fencing token,
     * fresh lease). After {@code maxHandOffs} hand-offs in a row, or {@code maxTime} since the run began, the lock is
     * freed instead whenever a waiter of another service was refused meanwhile, and this service's waiters hold back
     * for 5 ms so that the other one gets it. {@code maxHandOffs} 0 turns hand-offs off (the queue stays). Default
     * 16 hand-offs or 10 ms. Read, write and fair locks neither queue locally nor hand off; the hand-offs of a
     * service with {@link #replicaAcknowledgements} wait for them
     * before the waiter is told.
     */
    public RedisLockServiceBuilder handOffLimit(int maxHandOffs, Duration maxTime) {
        BuilderChecks.handOffLimit(maxHandOffs, maxTime);
        this.maxHandOffs = maxHandOffs;
        this.maxHandOffTime = maxTime;
        return this;
    }

    /**
     * The application's name, written with the host name and process id into this service's instance record in
     * Redis, so that {@link RedisLockService#inspect} tells which application holds a lock (the Spring Boot starter
     * passes {@code spring.application.name}). At most 200 characters are kept. Default: none.
     */
    public RedisLockServiceBuilder applicationName(@Nullable String applicationName) {
        this.applicationName = applicationName;
        return this;
    }

    /** Receives lock events; see {@link LockEventListener} for its threading rules. Default: none. */
    public RedisLockServiceBuilder listener(LockEventListener listener) {
        this.listener = BuilderChecks.nonNull(listener, "listener");
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
        BuilderChecks.check(this.renewalInterval, this.watchdogLease, this.shardingProxy, this.redis, this.replicas,
                this.waitStrategy);
        this.replicaDecision = ReplicaAcknowledgementDefault.decide(this.redis, this.shardingProxy, this.replicas,
                this.replicaTimeout);
        return new RedisLockService(this);
    }

    WaitStrategy waitStrategy() {
        if (this.waitStrategy != null) {
            return this.waitStrategy;
        }
        return this.shardingProxy ? WaitStrategy.POLLING : WaitStrategy.PUBSUB;
    }
}
