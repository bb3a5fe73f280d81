package dev.distlock.spring.autoconfigure;

import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import dev.distlock.LockInspection;
import dev.distlock.spring.actuate.LocksEndpoint;

/**
 * Registers the {@code locks} actuator endpoint ({@link LocksEndpoint}) when Actuator is on the class path and the
 * endpoint is available: enabled and exposed, which it is not over the web until the application adds it to
 * {@code management.endpoints.web.exposure.include}.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
public final class DistributedLockEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnSingleCandidate(LockInspection.class)
    LocksEndpoint locksEndpoint(LockInspection lockService) {
        return new LocksEndpoint(lockService);
    }
}
