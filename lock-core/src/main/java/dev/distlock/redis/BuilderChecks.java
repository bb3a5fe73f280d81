package dev.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockOptions;
import dev.distlock.redis.lease.ReplicaAcknowledgement;

/**
 * The checks of the builder's settings, each error naming the setting: the range of each setting as it is set (each
 * returns the value it accepted), and, when the builder builds a service, settings that contradict each other.
 */
final class BuilderChecks {

    private BuilderChecks() {
    }

    static Duration defaultWaitTime(@Nullable Duration defaultWaitTime) {
        nonNull(defaultWaitTime, "defaultWaitTime");
        if (defaultWaitTime.isNegative()) {
            throw new IllegalArgumentException("defaultWaitTime must not be negative, but was " + defaultWaitTime);
        }
        return defaultWaitTime;
    }

    static Duration watchdogLease(@Nullable Duration watchdogLease) {
        nonNull(watchdogLease, "watchdogLease");
        if (watchdogLease.compareTo(LockOptions.MAX_LEASE_TIME) > 0
                || watchdogLease.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException("watchdogLease must be between 1ms and "
                    + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + watchdogLease);
        }
        return watchdogLease;
    }

    static Duration renewalInterval(@Nullable Duration renewalInterval) {
        nonNull(renewalInterval, "renewalInterval");
        if (renewalInterval.compareTo(Duration.ofMillis(1)) < 0) { // also rejects negatives, without overflow
            throw new IllegalArgumentException("renewalInterval must be at least 1ms, but was " + renewalInterval);
        }
        return renewalInterval;
    }

    static Duration tokenRetention(@Nullable Duration tokenRetention) {
        nonNull(tokenRetention, "tokenRetention");
        if (tokenRetention.compareTo(Duration.ofSeconds(1)) < 0
                || tokenRetention.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("tokenRetention must be between 1s and "
                    + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + tokenRetention);
        }
        return tokenRetention;
    }

    static Duration waiterLease(@Nullable Duration waiterLease) {
        nonNull(waiterLease, "waiterLease");
        if (waiterLease.compareTo(LockOptions.MAX_LEASE_TIME) > 0
                || waiterLease.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("waiterLease must be between 100ms and "
                    + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + waiterLease);
        }
        return waiterLease;
    }

    static void replicaAcknowledgements(int replicas, Duration timeout) {
        if (replicas < -1) { // -1: by topology
            throw new IllegalArgumentException("replicas must be -1 (by topology), 0 (off) or positive, but was "
                    + replicas);
        }
        ReplicaAcknowledgement.checkTimeout(timeout);
    }

    static Duration restartGrace(@Nullable Duration restartGrace) {
        nonNull(restartGrace, "restartGrace");
        if (restartGrace.isNegative() || restartGrace.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("restartGrace must be between 0 and "
                    + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + restartGrace);
        }
        return restartGrace;
    }

    static Duration callTimeout(@Nullable Duration callTimeout) {
        nonNull(callTimeout, "callTimeout");
        if (callTimeout.compareTo(Duration.ofMillis(1)) < 0 || callTimeout.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("callTimeout must be between 1ms and 1 hour, but was " + callTimeout);
        }
        return callTimeout;
    }

    static void handOffLimit(int maxHandOffs, @Nullable Duration maxTime) {
        if (maxHandOffs < 0) {
            throw new IllegalArgumentException("maxHandOffs must not be negative, but was " + maxHandOffs);
        }
        nonNull(maxTime, "maxTime");
        if (maxTime.isNegative() || maxTime.isZero()) {
            throw new IllegalArgumentException("maxTime must be positive, but was " + maxTime);
        }
    }

    static <T> T nonNull(@Nullable T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /** The settings that contradict each other, checked when the builder builds a service. */
    static void check(@Nullable Duration renewalInterval, Duration watchdogLease, boolean shardingProxy,
            StringRedisTemplate redis, int replicas, @Nullable WaitStrategy waitStrategy) {
        if (renewalInterval != null && renewalInterval.compareTo(watchdogLease) >= 0) {
            throw new IllegalArgumentException("renewalInterval (" + renewalInterval
                    + ") must be shorter than watchdogLease (" + watchdogLease + ")");
        }
        if (shardingProxy && waitStrategy == WaitStrategy.PUBSUB) {
            throw new IllegalArgumentException("waitStrategy PUBSUB does not work behind a sharding proxy, which "
                    + "passes no pub/sub; use POLLING");
        }
        if (shardingProxy && replicas > 0) {
            throw new IllegalArgumentException("replicaAcknowledgements does not work behind a sharding proxy, "
                    + "which passes no WAIT");
        }
        if (replicas > 0 && redis.getRequiredConnectionFactory() instanceof LettuceConnectionFactory lettuce
                && !lettuce.getShareNativeConnection()) {
            // WAIT counts the writes of its own connection only: on another connection than the grant's it would
            // confirm a grant no replica has
            throw new IllegalArgumentException("replicaAcknowledgements needs the Lettuce connection factory's "
                    + "shared native connection (shareNativeConnection=true, the default), so that each WAIT runs on "
                    + "the connection of the grant it confirms; this factory has shareNativeConnection=false");
        }
    }
}
