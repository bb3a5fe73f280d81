package dev.distlock.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The checks the builder makes, when it builds a service, of settings that contradict each other. */
final class BuilderChecks {

    private BuilderChecks() {
    }

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
