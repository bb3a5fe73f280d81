package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.distlock.redis.EvictionPolicyCheck;
import dev.distlock.redis.RedisLockServiceBuilder;

/**
 * Safety settings past one Redis process, under {@code distlock.safety.*} (see docs/safety-restarts.md). The lock
 * service's builder owns their defaults and bounds; a value it refuses stops startup with a message naming the
 * property.
 */
@ConfigurationProperties(DistributedLockSafetyProperties.PREFIX)
public class DistributedLockSafetyProperties {

    public static final String PREFIX = "distlock.safety";

    /**
     * How long a Redis process grants no new lock after it started, so that leases it forgot in a restart without
     * persistence end first; at least the longest lease any client grants. 0 turns it off.
     */
    private Duration restartGrace = RedisLockServiceBuilder.DEFAULT_RESTART_GRACE;

    /** What to do when Redis's maxmemory-policy may evict held locks: WARN, FAIL (refuse to start) or OFF. */
    private EvictionPolicyCheck evictionPolicyCheck = RedisLockServiceBuilder.DEFAULT_EVICTION_POLICY_CHECK;

    public Duration getRestartGrace() {
        return this.restartGrace;
    }

    public void setRestartGrace(Duration restartGrace) {
        this.restartGrace = restartGrace;
    }

    public EvictionPolicyCheck getEvictionPolicyCheck() {
        return this.evictionPolicyCheck;
    }

    public void setEvictionPolicyCheck(EvictionPolicyCheck evictionPolicyCheck) {
        this.evictionPolicyCheck = evictionPolicyCheck;
    }
}
