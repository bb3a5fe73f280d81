package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;

/**
 * The restart grace the lock service gets: {@code distlock.safety.restart-grace} as set, or, when it is not set and
 * Spring Boot's Redis connection details come from a Redis the application starts itself (Testcontainers
 * {@code @ServiceConnection}, Docker Compose support), 0: such a Redis is new by construction, and a grace would only
 * refuse the developer's locks for its first 30 s. Any explicit setting, 30 s included, wins.
 */
final class FreshRedis {

    static final String PROPERTY = DistributedLockSafetyProperties.PREFIX + ".restart-grace";

    /** Connection details of a Redis started for the application: by Spring Boot's Testcontainers or Docker Compose. */
    private static final Set<String> STARTED_BY_THE_APPLICATION = Set.of(
            "org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory"
                    + "$ContainerConnectionDetails",
            "org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory"
                    + "$DockerComposeConnectionDetails");

    private static final Log logger = LogFactory.getLog(FreshRedis.class);

    private FreshRedis() {
    }

    static Duration restartGrace(DistributedLockSafetyProperties safety, Environment environment,
            @Nullable Object connectionDetails) {
        if (environment.containsProperty(PROPERTY) || connectionDetails == null
                || !isStartedByTheApplication(connectionDetails.getClass())) {
            return safety.getRestartGrace();
        }
        logger.info("Redis comes from " + connectionDetails.getClass().getSimpleName() + ", a server this "
                + "application starts: no restart grace (set " + PROPERTY + " to keep one).");
        return Duration.ZERO;
    }

    /** Whether connection details of this type describe a Redis the application started (a container, a service). */
    static boolean isStartedByTheApplication(Class<?> type) {
        for (Class<?> current = type; current != null; current = current.getSuperclass()) {
            if (STARTED_BY_THE_APPLICATION.contains(current.getName())) {
                return true;
            }
        }
        return false;
    }
}
