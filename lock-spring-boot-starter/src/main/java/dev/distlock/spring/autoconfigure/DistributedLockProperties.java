package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.core.Ordered;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.distlock.LockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.redis.WaitStrategy;
import dev.distlock.spring.OnNotAcquired;

/**
 * Settings of distlock under {@code distlock.*}. The lock service's builder owns their defaults and bounds (see
 * {@link RedisLockServiceBuilder}); a value it refuses stops startup with a message naming the property.
 */
@ConfigurationProperties(DistributedLockProperties.PREFIX)
public class DistributedLockProperties implements Validator {

    /** The prefix of every distlock property. */
    public static final String PREFIX = "distlock";

    /** Whether distlock is on: the LockService bean and the @DistributedLock advisor. */
    private boolean enabled = true;

    /** Prefix of every Redis key and channel of the locks; not blank, no braces. */
    private String keyPrefix = RedisLockServiceBuilder.DEFAULT_KEY_PREFIX;

    /** How long an acquisition waits for a lock held by another owner when the call names no wait time. */
    private Duration defaultWaitTime = RedisLockServiceBuilder.DEFAULT_WAIT_TIME;

    /**
     * How long a freed lock stays in Redis to recognise a retried release; at least 1s. Unset: the release's retry
     * window, three times the command timeout plus 1s (at least 10s), or 1h in quorum mode; see
     * docs/safety-restarts.md.
     */
    private @Nullable Duration tokenRetention;

    /** What a @DistributedLock method does when the lock stays held past its wait time: THROW or SKIP. */
    private NotAcquiredAction onNotAcquired = NotAcquiredAction.THROW;

    /**
     * Whether to check at startup, with a probe lock, that Redis's user may run every command the locks need; a
     * missing permission then stops startup. An unreachable Redis is only logged.
     */
    private boolean verifyAccessOnStartup = true;

    /**
     * How waiters learn that another process released a lock: PUBSUB (release messages; sharded pub/sub on a Redis
     * Cluster of Redis 7) or POLLING (capped exponential backoff, no pub/sub needed). Unset means PUBSUB, or POLLING
     * with distlock.sharding-proxy.
     */
    private @Nullable WaitStrategy waitStrategy;

    /**
     * Whether Redis is reached through a sharding proxy such as Twemproxy, which routes each command by its first
     * key and passes no pub/sub: waiters poll, renewals send one lock per script call, and the startup check opens no
     * subscription.
     */
    private boolean shardingProxy = RedisLockServiceBuilder.DEFAULT_SHARDING_PROXY;

    /**
     * Whether log lines name a lock by its key; false logs only the lock's name, for keys that hold user ids or
     * e-mail addresses. Exceptions and the locks endpoint still show keys.
     */
    private boolean logKeys = RedisLockServiceBuilder.DEFAULT_LOG_KEYS;

    /**
     * The longest lock key, in characters, that the locks accept (1 to 1024); a longer key fails at the call. A freed
     * lock keeps about 230 bytes plus its key's length in Redis for the token retention: lower this when keys come
     * from outside.
     */
    private int maxKeyLength = LockService.MAX_KEY_LENGTH;

    private final Watchdog watchdog = new Watchdog();

    private final Aspect aspect = new Aspect();

    private final ReplicaAcknowledgements replicaAcknowledgements = new ReplicaAcknowledgements();

    private final Redis redis = new Redis();

    @NestedConfigurationProperty
    private final HandOffProperties handOff = new HandOffProperties();

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getDefaultWaitTime() {
        return this.defaultWaitTime;
    }

    public void setDefaultWaitTime(Duration defaultWaitTime) {
        this.defaultWaitTime = defaultWaitTime;
    }

    public @Nullable Duration getTokenRetention() {
        return this.tokenRetention;
    }

    public void setTokenRetention(@Nullable Duration tokenRetention) {
        this.tokenRetention = tokenRetention;
    }

    public NotAcquiredAction getOnNotAcquired() {
        return this.onNotAcquired;
    }

    public void setOnNotAcquired(NotAcquiredAction onNotAcquired) {
        this.onNotAcquired = onNotAcquired;
    }

    public boolean isVerifyAccessOnStartup() {
        return this.verifyAccessOnStartup;
    }

    public void setVerifyAccessOnStartup(boolean verifyAccessOnStartup) {
        this.verifyAccessOnStartup = verifyAccessOnStartup;
    }

    public @Nullable WaitStrategy getWaitStrategy() {
        return this.waitStrategy;
    }

    public void setWaitStrategy(@Nullable WaitStrategy waitStrategy) {
        this.waitStrategy = waitStrategy;
    }

    public boolean isShardingProxy() {
        return this.shardingProxy;
    }

    public void setShardingProxy(boolean shardingProxy) {
        this.shardingProxy = shardingProxy;
    }

    public int getMaxKeyLength() {
        return this.maxKeyLength;
    }

    public void setMaxKeyLength(int maxKeyLength) {
        this.maxKeyLength = maxKeyLength;
    }

    public boolean isLogKeys() {
        return this.logKeys;
    }

    public void setLogKeys(boolean logKeys) {
        this.logKeys = logKeys;
    }

    public Watchdog getWatchdog() {
        return this.watchdog;
    }

    public ReplicaAcknowledgements getReplicaAcknowledgements() {
        return this.replicaAcknowledgements;
    }

    public HandOffProperties getHandOff() {
        return this.handOff;
    }

    public Aspect getAspect() {
        return this.aspect;
    }

    public Redis getRedis() {
        return this.redis;
    }

    @Override
    public boolean supports(Class<?> type) {
        return DistributedLockProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        if (((DistributedLockProperties) target).getOnNotAcquired() == null) {
            errors.rejectValue("onNotAcquired", "distlock.invalid", PREFIX + ".on-not-acquired must be THROW or SKIP");
        }
    }

    /** What a {@code @DistributedLock} method does by default when the lock is not acquired. */
    public enum NotAcquiredAction {

        /** Throw the {@link dev.distlock.LockTimeoutException}. */
        THROW(OnNotAcquired.THROW),

        /** Skip the method: it returns null, an empty Optional, or nothing. */
        SKIP(OnNotAcquired.SKIP);

        private final OnNotAcquired annotationValue;

        NotAcquiredAction(OnNotAcquired annotationValue) {
            this.annotationValue = annotationValue;
        }

        /** The same choice as the annotation's {@link OnNotAcquired}. */
        public OnNotAcquired toAnnotationValue() {
            return this.annotationValue;
        }
    }

    /** Lease renewal for locks taken without a fixed lease. */
    public static class Watchdog {

        /** Lease the watchdog renews for locks without a fixed lease: how long one outlives a crashed holder. */
        private Duration lease = RedisLockServiceBuilder.DEFAULT_WATCHDOG_LEASE;

        /** How often the watchdog renews leases; shorter than the lease. Unset means a third of the lease. */
        private @Nullable Duration renewalInterval;

        public Duration getLease() {
            return this.lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public @Nullable Duration getRenewalInterval() {
            return this.renewalInterval;
        }

        public void setRenewalInterval(@Nullable Duration renewalInterval) {
            this.renewalInterval = renewalInterval;
        }
    }

    /** Settings of the single-Redis lock service. */
    public static class Redis {

        /** How long a lock call waits for Redis before it fails (503), if shorter than the client's; not for quorum. */
        private Duration callTimeout = RedisLockServiceBuilder.DEFAULT_CALL_TIMEOUT;

        public Duration getCallTimeout() {
            return this.callTimeout;
        }

        public void setCallTimeout(Duration callTimeout) {
            this.callTimeout = callTimeout;
        }
    }

    /**
     * Waiting for replicas after every grant, hand-off and renewal (Redis WAIT), so that a lock survives a Sentinel or
     * Cluster failover.
     */
    public static class ReplicaAcknowledgements {

        /**
         * Replicas that must acknowledge each grant, hand-off and renewal; -1 (the default): one where the topology
         * has replicas (Sentinel, a Cluster whose masters have replicas, a master with connected replicas), else
         * none; 0 opts out.
         */
        private int replicas = RedisLockServiceBuilder.REPLICAS_BY_TOPOLOGY;

        /** How long to wait for them, 1ms to 1 minute; keep it short and below the client's command timeout. */
        private Duration timeout = RedisLockServiceBuilder.DEFAULT_REPLICA_ACKNOWLEDGEMENT_TIMEOUT;

        public int getReplicas() {
            return this.replicas;
        }

        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        public Duration getTimeout() {
            return this.timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** The {@code @DistributedLock} advisor. */
    public static class Aspect {

        /**
         * The default order: just outside the transaction advisor (Ordered.LOWEST_PRECEDENCE by default), so that
         * the lock is taken before a transaction begins and released after it commits or rolls back.
         */
        public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

        /** Order of the @DistributedLock advisor; the default (LOWEST_PRECEDENCE - 100) wraps @Transactional. */
        private int order = DEFAULT_ORDER;

        public int getOrder() {
            return this.order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }
}
