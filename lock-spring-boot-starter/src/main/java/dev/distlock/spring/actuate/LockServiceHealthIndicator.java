package dev.distlock.spring.actuate;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.distlock.LockInspection;
import dev.distlock.LockUnavailableException;

/**
 * The health of a {@link LockInspection}: {@code DOWN} when Redis does not answer a PING through the service's
 * connection (within the client's command timeout), or when the watchdog is behind with a lease
 * ({@link LockInspection#overdueRenewalCount()}: a watched lease not renewed for two renewal intervals, which is
 * lost if renewal does not catch up by its deadline). Otherwise {@code UP}. Details: {@code redis}
 * ({@code reachable} or {@code unreachable}, with the {@code error}), {@code heldLocks}, {@code renewing},
 * {@code overdueRenewals} and {@code renewalInterval}.
 */
public class LockServiceHealthIndicator implements HealthIndicator {

    private final LockInspection lockService;

    /** Reports the health of {@code lockService}. */
    public LockServiceHealthIndicator(LockInspection lockService) {
        this.lockService = lockService;
    }

    @Override
    public Health health() {
        Health.Builder health;
        try {
            this.lockService.ping();
            health = Health.up().withDetail("redis", "reachable");
        }
        catch (LockUnavailableException ex) {
            health = Health.down(rootCause(ex)).withDetail("redis", "unreachable");
        }
        int overdue = this.lockService.overdueRenewalCount();
        if (overdue > 0) {
            health.down();
        }
        return health.withDetail("heldLocks", this.lockService.heldLocks().size())
            .withDetail("renewing", this.lockService.renewingCount())
            .withDetail("overdueRenewals", overdue)
            .withDetail("renewalInterval", this.lockService.renewalInterval().toString())
            .build();
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
