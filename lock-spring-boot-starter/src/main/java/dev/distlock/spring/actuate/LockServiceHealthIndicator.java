package dev.distlock.spring.actuate;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.distlock.LockInspection;
import dev.distlock.LockUnavailableException;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * The health of a {@link LockInspection}: {@code DOWN} when Redis does not answer a PING through the service's
 * connection within {@link #PING_TIMEOUT} (1 second; so a health check answers in about that long at most, never
 * waiting for the client's command timeout), or when the watchdog is behind with a lease
 * ({@link LockInspection#overdueRenewalCount()}: a watched lease not renewed for two renewal intervals, which is
 * lost if renewal does not catch up by its deadline). Otherwise {@code UP}. Details: {@code redis}
 * ({@code reachable} or {@code unreachable}, with the {@code error}), {@code heldLocks}, {@code renewing},
 * {@code overdueRenewals} and {@code renewalInterval}; while Redis refuses new locks for its restart grace (as met by a
 * refusal, see {@link RestartGraceMonitor}), {@code restartGrace} with {@code resumesIn} and {@code message}, the
 * status staying {@code UP}: held locks go on, and the grace ends by itself.
 */
public class LockServiceHealthIndicator implements HealthIndicator {

    /** How long a health check waits for Redis's answer to its PING. */
    public static final Duration PING_TIMEOUT = Duration.ofSeconds(1);

    /** The PING still awaiting Redis's answer, which the next check waits for rather than send another. */
    private final AtomicReference<CompletableFuture<Duration>> ping = new AtomicReference<>();

    private final LockInspection lockService;

    private final @Nullable RestartGraceMonitor restartGrace;

    /** Reports the health of {@code lockService}. */
    public LockServiceHealthIndicator(LockInspection lockService) {
        this(lockService, null);
    }

    /** Reports the health of {@code lockService} and the restart grace {@code restartGrace} saw it meet. */
    public LockServiceHealthIndicator(LockInspection lockService, @Nullable RestartGraceMonitor restartGrace) {
        this.lockService = lockService;
        this.restartGrace = restartGrace;
    }

    @Override
    public Health health() {
        Health.Builder health;
        try {
            ping().get(PING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            health = Health.up().withDetail("redis", "reachable");
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause();
            if (!(cause instanceof LockUnavailableException unavailable)) { // reported by Boot as it was before
                throw (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
            }
            health = Health.down(rootCause(unavailable)).withDetail("redis", "unreachable");
        }
        catch (TimeoutException ex) {
            health = Health.down()
                .withDetail("redis", "unreachable")
                .withDetail("error", "Redis did not answer a PING within " + PING_TIMEOUT.toMillis() + " ms");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            health = Health.unknown().withDetail("redis", "interrupted while waiting for a PING");
        }
        int overdue = this.lockService.overdueRenewalCount();
        if (overdue > 0) {
            health.down();
        }
        Map<String, Object> grace = (this.restartGrace != null) ? this.restartGrace.state() : null;
        if (grace != null) {
            health.withDetail("restartGrace", grace);
        }
        return health.withDetail("heldLocks", this.lockService.heldLocks().size())
            .withDetail("renewing", this.lockService.renewingCount())
            .withDetail("overdueRenewals", overdue)
            .withDetail("renewalInterval", this.lockService.renewalInterval().toString())
            .build();
    }

    /**
     * The PING in flight, or a new one sent from a thread of its own: the caller waits at most {@link #PING_TIMEOUT},
     * while the PING may wait for the client's command timeout; at most one is in flight however often health is asked.
     */
    private CompletableFuture<Duration> ping() {
        CompletableFuture<Duration> current = this.ping.get();
        if (current != null && !current.isDone()) {
            return current;
        }
        CompletableFuture<Duration> next = new CompletableFuture<>();
        if (!this.ping.compareAndSet(current, next)) {
            return this.ping.get();
        }
        Thread sender = new Thread(() -> {
            try {
                next.complete(this.lockService.ping());
            }
            catch (Throwable ex) {
                next.completeExceptionally(ex);
            }
        }, "distlock-health-ping");
        sender.setDaemon(true);
        sender.start();
        return next;
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }
}
