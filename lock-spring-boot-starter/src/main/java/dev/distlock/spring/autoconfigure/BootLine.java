package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The one place that knows what differs between the Spring Boot lines the starter runs on (3.5, 4.0, 4.1): the names
 * of the classes Boot 4 moved into modules of their own. Auto-configurations name both lines' classes (as
 * {@code afterName}, or {@code @ConditionalOnClass(name = ...)} for the auto-configuration of one line), so that no
 * class of the other line is ever loaded. What 3.5 cannot offer is listed in docs/spring-boot.md.
 */
final class BootLine {

    static final String BOOT4_REDIS = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration";

    static final String BOOT3_REDIS = "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration";

    static final String BOOT4_METRICS = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration";

    static final String BOOT4_COMPOSITE_METER_REGISTRY =
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration";

    static final String BOOT4_SIMPLE_METRICS =
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration";

    static final String BOOT3_METRICS = "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration";

    static final String BOOT3_COMPOSITE_METER_REGISTRY =
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration";

    static final String BOOT3_SIMPLE_METRICS =
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration";

    static final String BOOT4_OBSERVATION =
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration";

    static final String BOOT3_OBSERVATION =
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration";

    static final String BOOT4_HEALTH_INDICATOR = "org.springframework.boot.health.contributor.HealthIndicator";

    static final String BOOT4_ENABLED_HEALTH_INDICATOR =
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator";

    static final String BOOT3_HEALTH_INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";

    static final String BOOT3_ENABLED_HEALTH_INDICATOR =
            "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator";

    /** Spring Boot's Redis connection details: Boot 4's, then Boot 3.5's. */
    private static final String[] REDIS_CONNECTION_DETAILS = {
            "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails",
            "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails" };

    private BootLine() {
    }

    /** The type of Spring Boot's Redis connection details on this class path, if any. */
    static @Nullable Class<?> redisConnectionDetails(@Nullable ClassLoader classLoader) {
        for (String name : REDIS_CONNECTION_DETAILS) {
            if (ClassUtils.isPresent(name, classLoader)) {
                return ClassUtils.resolveClassName(name, classLoader);
            }
        }
        return null;
    }
}
