package dev.distlock.spring.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockInspection;
import dev.distlock.LockUnavailableException;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * The lock service's health in no Spring Boot line's types: each line's health contributor (Boot 4's
 * {@link LockServiceHealthIndicator}, Boot 3.5's {@code Boot3LockServiceHealthIndicator}) only turns it into its own
 * {@code Health}, so that both report the same status and details.
 */
final class LockHealth {

    private final boolean up;

    private final @Nullable Throwable error;

    private final Map<String, Object> details;

    private LockHealth(boolean up, @Nullable Throwable error, Map<String, Object> details) {
        this.up = up;
        this.error = error;
        this.details = details;
    }

    static LockHealth of(LockInspection lockService, HealthPing ping, @Nullable RestartGraceMonitor restartGrace) {
        Map<String, Object> details = new LinkedHashMap<>();
        Throwable error = null;
        try {
            ping.await();
            details.put("redis", "reachable");
        }
        catch (LockUnavailableException ex) {
            error = rootCause(ex);
            details.put("redis", "unreachable");
        }
        catch (TimeoutException ex) {
            error = new TimeoutException("Redis did not answer a PING within " + HealthPing.TIMEOUT.toMillis() + " ms");
            details.put("redis", "unreachable");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            error = ex;
            details.put("redis", "interrupted while waiting for a PING");
        }
        int overdue = lockService.overdueRenewalCount();
        Map<String, Object> grace = (restartGrace != null) ? restartGrace.state() : null;
        if (grace != null) {
            details.put("restartGrace", grace);
        }
        details.put("heldLocks", lockService.heldLocks().size());
        details.put("renewing", lockService.renewingCount());
        details.put("overdueRenewals", overdue);
        details.put("renewalInterval", lockService.renewalInterval().toString());
        return new LockHealth(error == null && overdue == 0, error, details);
    }

    /** {@code UP}, or {@code DOWN} when Redis did not answer or a renewal is overdue. */
    boolean isUp() {
        return this.up;
    }

    /** Why Redis did not answer (the root cause), if it did not. */
    @Nullable Throwable error() {
        return this.error;
    }

    /** The details, in the order they are reported. */
    Map<String, Object> details() {
        return this.details;
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
