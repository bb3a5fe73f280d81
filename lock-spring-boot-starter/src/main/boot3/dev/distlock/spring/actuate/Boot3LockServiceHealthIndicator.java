package dev.distlock.spring.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

import dev.distlock.LockInspection;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * {@link LockServiceHealthIndicator} for Spring Boot 3.5, whose health API lives in another package: the same status
 * and details. Compiled against Boot 3.5 (see the starter's pom) and registered only where Boot 3's
 * {@code HealthIndicator} exists.
 */
public class Boot3LockServiceHealthIndicator implements HealthIndicator {

    private final LockInspection lockService;

    private final HealthPing ping;

    private final @Nullable RestartGraceMonitor restartGrace;

    /** Reports the health of {@code lockService} and the restart grace {@code restartGrace} saw it meet. */
    public Boot3LockServiceHealthIndicator(LockInspection lockService, @Nullable RestartGraceMonitor restartGrace) {
        this.lockService = lockService;
        this.ping = new HealthPing(lockService);
        this.restartGrace = restartGrace;
    }

    @Override
    public Health health() {
        LockHealth health = LockHealth.of(this.lockService, this.ping, this.restartGrace);
        Throwable error = health.error();
        Health.Builder builder = (error != null) ? Health.down(error) : health.isUp() ? Health.up() : Health.down();
        return builder.withDetails(health.details()).build();
    }
}
