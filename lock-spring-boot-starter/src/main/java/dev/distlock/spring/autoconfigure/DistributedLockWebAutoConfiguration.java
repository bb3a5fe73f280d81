package dev.distlock.spring.autoconfigure;

import java.time.Duration;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ProblemDetail;

import dev.distlock.spring.RestartGraceMonitor;
import dev.distlock.spring.web.LockProblemDetailsHandler;

/**
 * In a Spring MVC or WebFlux application, registers the {@link LockProblemDetailsHandler} that answers lock failures
 * with problem details (400, 409, 503) instead of a bare 500. {@code distlock.web.problem-details=false} turns it off; a
 * bean of that type replaces it.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnWebApplication
@ConditionalOnClass(ProblemDetail.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "distlock.web.problem-details", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockWebProperties.class)
public final class DistributedLockWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockProblemDetailsHandler lockProblemDetailsHandler(DistributedLockWebProperties properties,
            ObjectProvider<RestartGraceMonitor> restartGrace) {
        RestartGraceMonitor monitor = restartGrace.getIfUnique();
        return new LockProblemDetailsHandler(properties.getRetryAfter(),
                (monitor != null) ? monitor.grace() : Duration.ZERO);
    }
}
