package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockEventListener;
import dev.distlock.LockService;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.redis.script.LockKeys;

/** Settings of a {@link QuorumLockService}; each is checked when set, with a message naming it. */
public final class QuorumLockServiceBuilder {

    /** Default {@link #tokenRetention}. */
    public static final Duration DEFAULT_TOKEN_RETENTION = Duration.ofHours(1);

    /** Default {@link #nodeTimeout}. */
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(200);

    final List<StringRedisTemplate> masters;

    /** One per master, given every setting the masters' services share, which they check. */
    final List<RedisLockServiceBuilder> nodeBuilders = new ArrayList<>();

    String keyPrefix = RedisLockServiceBuilder.DEFAULT_KEY_PREFIX;

    int maxKeyLength = LockService.MAX_KEY_LENGTH;

    Duration defaultWaitTime = RedisLockServiceBuilder.DEFAULT_WAIT_TIME;

    Duration watchdogLease = RedisLockServiceBuilder.DEFAULT_WATCHDOG_LEASE;

    Duration tokenRetention = DEFAULT_TOKEN_RETENTION;

    Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;

    LockEventListener listener = Listeners.NONE;

    QuorumLockServiceBuilder(List<StringRedisTemplate> masters) {
        this.masters = masters;
        masters.forEach(master -> this.nodeBuilders.add(RedisLockService.builder(master)));
    }

    /** The prefix of every Redis key of the locks, on every master. Default {@code distlock}. */
    public QuorumLockServiceBuilder keyPrefix(String keyPrefix) {
        this.nodeBuilders.forEach(node -> node.keyPrefix(keyPrefix));
        this.keyPrefix = keyPrefix;
        return this;
    }

    /** The application's name in each master's instance record; see {@link RedisLockServiceBuilder#applicationName}. */
    public QuorumLockServiceBuilder applicationName(@Nullable String applicationName) {
        this.nodeBuilders.forEach(node -> node.applicationName(applicationName));
        return this;
    }

    /** The longest key the service accepts; see {@link RedisLockServiceBuilder#maxKeyLength(int)}. Default 1024. */
    public QuorumLockServiceBuilder maxKeyLength(int maxKeyLength) {
        this.maxKeyLength = LockKeys.checkMaxKeyLength(maxKeyLength);
        return this;
    }

    /** How long {@code acquire} waits when the options name no wait time. Default 10 seconds. */
    public QuorumLockServiceBuilder defaultWaitTime(Duration defaultWaitTime) {
        this.nodeBuilders.forEach(node -> node.defaultWaitTime(defaultWaitTime));
        this.defaultWaitTime = defaultWaitTime;
        return this;
    }

    /**
     * The lease each master's watchdog keeps alive for locks taken without a fixed lease: how long such a lock
     * survives its holder's crash. Default 30 seconds; at least ten node timeouts.
     */
    public QuorumLockServiceBuilder watchdogLease(Duration watchdogLease) {
        this.nodeBuilders.forEach(node -> node.watchdogLease(watchdogLease));
        this.watchdogLease = watchdogLease;
        return this;
    }

    /** How often each master's watchdog renews leases. Default a third of the watchdog lease. */
    public QuorumLockServiceBuilder renewalInterval(Duration renewalInterval) {
        this.nodeBuilders.forEach(node -> node.renewalInterval(renewalInterval));
        return this;
    }

    /**
     * How long each master keeps a lock's last fencing token (the quorum fence from a grant, the lock's last token
     * from a release). Default one hour.
     */
    public QuorumLockServiceBuilder tokenRetention(Duration tokenRetention) {
        this.nodeBuilders.forEach(node -> node.tokenRetention(tokenRetention));
        this.tokenRetention = tokenRetention;
        return this;
    }

    /**
     * How long each master grants nothing new after its process started
     * ({@link RedisLockServiceBuilder#restartGrace}): a master that restarted without its data stays out of
     * quorums until the leases it forgot have ended. Default 30 seconds.
     */
    public QuorumLockServiceBuilder restartGrace(Duration restartGrace) {
        this.nodeBuilders.forEach(node -> node.restartGrace(restartGrace));
        return this;
    }

    /**
     * How long an attempt waits for each master's answer; a master that has not answered by then counts as down
     * for that attempt. Much shorter than the lease. Default 200 ms.
     */
    public QuorumLockServiceBuilder nodeTimeout(Duration nodeTimeout) {
        if (nodeTimeout == null || nodeTimeout.compareTo(Duration.ofMillis(1)) < 0
                || nodeTimeout.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException(
                    "nodeTimeout must be between 1ms and 1 minute, but was " + nodeTimeout);
        }
        this.nodeTimeout = nodeTimeout;
        return this;
    }

    /** Receives the quorum locks' events (not the single masters'); see {@link LockEventListener} for its rules. */
    public QuorumLockServiceBuilder listener(LockEventListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        this.listener = listener;
        return this;
    }

    /**
     * Builds the service: one {@link RedisLockService} per master, with its watchdog thread.
     *
     * @throws IllegalArgumentException when the node timeout is more than a tenth of the watchdog lease, or the
     * renewal interval is not shorter than the watchdog lease
     */
    public QuorumLockService build() {
        if (this.nodeTimeout.multipliedBy(10).compareTo(this.watchdogLease) > 0) {
            throw new IllegalArgumentException("nodeTimeout (" + this.nodeTimeout
                    + ") must be at most a tenth of watchdogLease (" + this.watchdogLease + ")");
        }
        return new QuorumLockService(this);
    }
}
