package dev.distlock.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

import dev.distlock.LockInspection;
import dev.distlock.spring.RestartGraceMonitor;
import dev.distlock.spring.actuate.LockServiceHealthIndicator;

/**
 * Registers the {@code distlock} health contributor ({@link LockServiceHealthIndicator}) when Spring Boot's health
 * support is on the class path; {@code management.health.distlock.enabled=false} turns it off. Boot 3.5's health API
 * lives in other packages: {@code DistributedLockBoot3HealthAutoConfiguration} registers the same contributor there.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
// By name: a class read by reflection (as tests register it) loses an annotation whose class is missing.
@ConditionalOnClass(name = { BootLine.BOOT4_HEALTH_INDICATOR, BootLine.BOOT4_ENABLED_HEALTH_INDICATOR })
@ConditionalOnSingleCandidate(LockInspection.class)
public final class DistributedLockHealthAutoConfiguration {

    // On the method: a class-level condition's class must load even when @ConditionalOnClass fails.
    @Bean
    @ConditionalOnEnabledHealthIndicator("distlock")
    @ConditionalOnMissingBean(name = "distlockHealthIndicator")
    LockServiceHealthIndicator distlockHealthIndicator(LockInspection lockService,
            ObjectProvider<RestartGraceMonitor> restartGrace) {
        return new LockServiceHealthIndicator(lockService, restartGrace.getIfUnique());
    }
}
