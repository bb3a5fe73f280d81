package dev.distlock.spring.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.spring.micrometer.LockObservations;
import dev.distlock.spring.micrometer.ObservedLockService;

/**
 * Observes locks when Micrometer's Observation API is on the class path and the application has an
 * {@link ObservationRegistry}: {@link LockObservations}, a listener of the lock services the starter builds, turns
 * their events into observations (blocking, non-blocking and reactive calls alike), and the context's
 * {@link RedisLockService} is wrapped in an {@link ObservedLockService}, the primary {@link LockService} that
 * applications and {@code @DistributedLock} use, whose handles open their observation's scope.
 * {@code management.observations.enable.distlock=false} turns the observations off.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class,
        afterName = { BootLine.BOOT4_OBSERVATION, BootLine.BOOT3_OBSERVATION })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockMetricsProperties.class)
public final class DistributedLockObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockObservations distributedLockObservations(ObservationRegistry registry, LockMetricsProperties properties) {
        return new LockObservations(registry, properties.names());
    }

    @Bean
    @Primary
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(RedisLockService.class)
    ObservedLockService observedLockService(RedisLockService lockService, LockObservations observations) {
        return new ObservedLockService(lockService, observations);
    }
}
