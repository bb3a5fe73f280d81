package dev.distlock.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

import dev.distlock.LockInspection;
import dev.distlock.spring.RestartGraceMonitor;
import dev.distlock.spring.actuate.Boot3LockServiceHealthIndicator;

/**
 * {@link DistributedLockHealthAutoConfiguration} for Spring Boot 3.5: switched on by Boot 3's health API
 * ({@code org.springframework.boot.actuate.health.HealthIndicator}, a class only Boot 3 has), the same
 * {@code distlock} contributor and {@code management.health.distlock.enabled} switch. Compiled against Boot 3.5.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnClass(name = { BootLine.BOOT3_HEALTH_INDICATOR, BootLine.BOOT3_ENABLED_HEALTH_INDICATOR })
@ConditionalOnSingleCandidate(LockInspection.class)
public final class DistributedLockBoot3HealthAutoConfiguration {

    @Bean
    @ConditionalOnEnabledHealthIndicator("distlock")
    @ConditionalOnMissingBean(name = "distlockHealthIndicator")
    Boot3LockServiceHealthIndicator distlockHealthIndicator(LockInspection lockService,
            ObjectProvider<RestartGraceMonitor> restartGrace) {
        return new Boot3LockServiceHealthIndicator(lockService, restartGrace.getIfUnique());
    }
}
