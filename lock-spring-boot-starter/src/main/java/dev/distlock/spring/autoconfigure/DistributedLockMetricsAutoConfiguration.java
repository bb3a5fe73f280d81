package dev.distlock.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import dev.distlock.LockInspection;
import dev.distlock.spring.micrometer.LockMetrics;

/**
 * Records lock metrics (see {@link LockMetrics}) when Micrometer is on the class path and the application has a
 * {@link MeterRegistry}: the {@link LockMetrics} listener, which the auto-configured lock service reports to, and the
 * held-locks gauge of the context's {@link LockInspection}.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class, afterName = { BootLine.BOOT4_METRICS,
        BootLine.BOOT4_COMPOSITE_METER_REGISTRY, BootLine.BOOT4_SIMPLE_METRICS, BootLine.BOOT3_METRICS,
        BootLine.BOOT3_COMPOSITE_METER_REGISTRY, BootLine.BOOT3_SIMPLE_METRICS })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LockMetricsProperties.class)
public final class DistributedLockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockMetrics distributedLockMetrics(MeterRegistry registry, LockMetricsProperties properties) {
        return new LockMetrics(registry, properties.names());
    }

    @Bean
    @ConditionalOnMissingBean(name = "distributedLockHeldLocksMetrics")
    @ConditionalOnSingleCandidate(LockInspection.class)
    MeterBinder distributedLockHeldLocksMetrics(LockInspection lockService) {
        return LockMetrics.heldLocks(lockService);
    }
}
