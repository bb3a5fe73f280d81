package dev.distlock.spring.actuate;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockInspection;

/**
 * A health check's PING of Redis, waited for at most {@link #TIMEOUT} whatever the client's command timeout: the PING
 * is sent from a thread of its own, and at most one is in flight however often health is asked (the next check waits
 * for the same answer rather than send another). One per health contributor.
 */
final class HealthPing {

    /** How long a health check waits for Redis's answer to its PING. */
    static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final AtomicReference<CompletableFuture<Duration>> inFlight = new AtomicReference<>();

    private final LockInspection lockService;

    HealthPing(LockInspection lockService) {
        this.lockService = lockService;
    }

    /**
     * Redis's answer within {@link #TIMEOUT}: returns normally when it answered, throws what the PING threw
     * ({@code LockUnavailableException} when Redis is unreachable), or a {@link TimeoutException} when it has not
     * answered in time.
     */
    void await() throws TimeoutException, InterruptedException {
        try {
            send().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause();
            throw (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
        }
    }

    private CompletableFuture<Duration> send() {
        CompletableFuture<Duration> current = this.inFlight.get();
        if (current != null && !current.isDone()) {
            return current;
        }
        CompletableFuture<Duration> next = new CompletableFuture<>();
        if (!this.inFlight.compareAndSet(current, next)) {
            return this.inFlight.get();
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
}
