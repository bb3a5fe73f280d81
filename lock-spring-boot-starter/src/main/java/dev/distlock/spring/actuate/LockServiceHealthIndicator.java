package dev.distlock.spring.actuate;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.distlock.LockInspection;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * The health of a {@link LockInspection}: {@code DOWN} when Redis does not answer a PING through the service's
 * connection within 1 second ( so a health check answers in about that long at most, never
 * waiting for the client's command timeout), or when the watchdog is behind with a lease
 * ({@link LockInspection#overdueRenewalCount()}: a watched lease not renewed for two renewal intervals, which is
 * lost if renewal does not catch up by its deadline). Otherwise {@code UP}. Details: {@code redis}
 * ({@code reachable} or {@code unreachable}, with the {@code error}), {@code heldLocks}, {@code renewing},
 * {@code overdueRenewals} and {@code renewalInterval}; while Redis refuses new locks for its restart grace (as met by a
 * refusal, see {@link RestartGraceMonitor}), {@code restartGrace} with {@code resumesIn} and {@code message}, the
 * status staying {@code UP}: held locks go on, and the grace ends by itself.
 */
public class LockServiceHealthIndicator implements HealthIndicator {

    private final LockInspection lockService;

    private final HealthPing ping;

    private final @Nullable RestartGraceMonitor restartGrace;

    /** Reports the health of {@code lockService}. */
    public LockServiceHealthIndicator(LockInspection lockService) {
        this(lockService, null);
    }

    /** Reports the health of {@code lockService} and the restart grace {@code restartGrace} saw it meet. */
    public LockServiceHealthIndicator(LockInspection lockService, @Nullable RestartGraceMonitor restartGrace) {
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
