package dev.distlock.spring.autoconfigure;

import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.distlock.LockService;
import dev.distlock.shedlock.DistributedLockProvider;

/**
 * Registers distlock's ShedLock {@link LockProvider} ({@link DistributedLockProvider}) on the context's
 * {@link LockService} when ShedLock and {@code lock-shedlock} are on the class path and the application defines no
 * {@link LockProvider}; {@code distlock.shedlock.enabled=false} turns it off. {@code @EnableSchedulerLock} stays the
 * application's.
 */
@AutoConfiguration(after = { DistributedLockAutoConfiguration.class, QuorumLockAutoConfiguration.class,
        DistributedLockObservationAutoConfiguration.class })
@ConditionalOnClass({ LockProvider.class, DistributedLockProvider.class })
@ConditionalOnBooleanProperty(name = "distlock.shedlock.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(LockService.class)
@EnableConfigurationProperties(ShedLockProperties.class)
public final class ShedLockProviderAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    DistributedLockProvider distributedLockProvider(LockService lockService, ShedLockProperties properties) {
        return new DistributedLockProvider(lockService, properties.getKeyPrefix());
    }
}
