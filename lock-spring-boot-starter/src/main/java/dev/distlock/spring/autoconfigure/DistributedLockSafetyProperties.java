package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.distlock.LockOptions;
import dev.distlock.redis.EvictionPolicyCheck;

/**
 * Safety settings past one Redis process, under {@code distlock.safety.*} (see docs/safety-restarts.md). Checked when
 * bound: an invalid value stops startup with a message naming the property.
 */
@ConfigurationProperties(DistributedLockSafetyProperties.PREFIX)
public class DistributedLockSafetyProperties implements Validator {

    public static final String PREFIX = "distlock.safety";

    /**
     * How long a Redis process grants no new lock after it started, so that leases it forgot in a restart without
     * persistence end first; at least the longest lease any client grants. 0 turns it off.
     */
    private Duration restartGrace = Duration.ofSeconds(30);

    /** What to do when Redis's maxmemory-policy may evict held locks: WARN, FAIL (refuse to start) or OFF. */
    private EvictionPolicyCheck evictionPolicyCheck = EvictionPolicyCheck.WARN;

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

    @Override
    public boolean supports(Class<?> type) {
        return DistributedLockSafetyProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        DistributedLockSafetyProperties properties = (DistributedLockSafetyProperties) target;
        Duration grace = properties.getRestartGrace();
        if (grace == null || grace.isNegative() || grace.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            errors.rejectValue("restartGrace", "invalid", PREFIX + ".restart-grace must be between 0 and "
                    + LockOptions.MAX_LEASE_TIME.toDays() + " days, but was " + grace);
        }
        if (properties.getEvictionPolicyCheck() == null) {
            errors.rejectValue("evictionPolicyCheck", "invalid", PREFIX + ".eviction-policy-check must be set");
        }
    }
}
