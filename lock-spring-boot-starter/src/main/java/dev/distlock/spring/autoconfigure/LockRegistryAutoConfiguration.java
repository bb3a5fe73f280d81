package dev.distlock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.integration.DistributedLockRegistry;

/**
 * Registers distlock's Spring Integration {@link LockRegistry} ({@link DistributedLockRegistry}) on the context's
 * {@link LockService} when Spring Integration and {@code lock-spring-integration} are on the class path and the
 * application defines no {@link LockRegistry}; {@code distlock.lock-registry.enabled=false} turns it off.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, QuorumLockAutoConfiguration.class,
        DistributedLockObservationAutoConfiguration.class })
@ConditionalOnClass({ LockRegistry.class, DistributedLockRegistry.class })
@ConditionalOnBooleanProperty(name = "distlock.lock-registry.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(LockService.class)
@EnableConfigurationProperties(LockRegistryProperties.class)
public final class LockRegistryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    DistributedLockRegistry distributedLockRegistry(LockService lockService, LockRegistryProperties properties) {
        return new DistributedLockRegistry(lockService, properties.getKeyPrefix(), LockOptions.defaults(),
                properties.getCacheCapacity());
    }
}
