package dev.distlock.redis;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The checks {@link RedisLockServiceBuilder#build()} makes of settings that contradict each other. */
final class BuilderChecks {

    private BuilderChecks() {
    }

    static void check(RedisLockServiceBuilder settings, int replicas, @Nullable WaitStrategy waitStrategy) {
        if (settings.renewalInterval != null && settings.renewalInterval.compareTo(settings.watchdogLease) >= 0) {
            throw new IllegalArgumentException("renewalInterval (" + settings.renewalInterval
                    + ") must be shorter than watchdogLease (" + settings.watchdogLease + ")");
        }
        if (settings.shardingProxy && waitStrategy == WaitStrategy.PUBSUB) {
            throw new IllegalArgumentException("waitStrategy PUBSUB does not work behind a sharding proxy, which "
                    + "passes no pub/sub; use POLLING");
        }
        if (settings.shardingProxy && replicas > 0) {
            throw new IllegalArgumentException("replicaAcknowledgements does not work behind a sharding proxy, "
                    + "which passes no WAIT");
        }
        if (replicas > 0 && settings.redis.getRequiredConnectionFactory() instanceof LettuceConnectionFactory lettuce
                && !lettuce.getShareNativeConnection()) {
            // WAIT counts the writes of its own connection only: on another connection than the grant's it would
            // confirm a grant no replica has
            throw new IllegalArgumentException("replicaAcknowledgements needs the Lettuce connection factory's "
                    + "shared native connection (shareNativeConnection=true, the default), so that each WAIT runs on "
                    + "the connection of the grant it confirms; this factory has shareNativeConnection=false");
        }
    }
}
