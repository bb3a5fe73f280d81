package dev.distlock.spring.micrometer;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockInspection;

/**
 * Records lock events as Micrometer meters. Every meter is tagged with the lock's {@linkplain LockHandle#name() name}
 * (never its key, which may hold user ids), bounded by {@link MetricNames}: declared names, at most 100 distinct values
 * by default, the rest counted as {@code other}. The renewal counter, which counts batches across locks, has no name:
 * <ul>
 * <li>{@value #ACQUIRE_ATTEMPTS} (counter) and {@value #ACQUIRE_WAIT} (timer, the time spent acquiring), tagged
 * {@code name} and {@code outcome}: {@code acquired}, {@code timed_out} (held by another owner until the wait ended,
 * or at a {@code tryAcquire}'s one attempt), {@code redis_error}, {@code interrupted} or {@code failed}. A multi-key
 * acquisition counts one attempt per key, and blocking, non-blocking and reactive calls count alike;</li>
 * <li>{@value #HAND_OFFS} (counter): locks handed straight from a releasing holder to a waiter of the same service,
 * tagged {@code name};</li>
 * <li>{@value #HOLD} (timer): how long locks were held, recorded at each successful release, tagged {@code name};</li>
 * <li>{@value #RENEWALS} (counter): leases renewed by the watchdog, tagged {@code outcome} {@code renewed}, or
 * {@code failed} for a renewal that could not reach Redis (retried; the lease stays valid until its deadline);</li>
 * <li>{@value #LEASES_LOST} (counter): leases lost while held, tagged {@code name};</li>
 * <li>{@value #LOCKS_HELD} (gauge, untagged): the locks the service holds now, bound by {@link #heldLocks}.</li>
 * </ul>
 * It is a {@link LockEventListener}: register it with the lock service's builder; the starter does when a
 * {@link MeterRegistry} bean exists. Recording never blocks on Redis and never throws into a lock operation.
 */
public final class LockMetrics implements LockEventListener {

    /** Acquire attempts, by name and outcome. */
    public static final String ACQUIRE_ATTEMPTS = "distlock.acquire.attempts";

    /** Time spent acquiring, by name and outcome. */
    public static final String ACQUIRE_WAIT = "distlock.acquire.wait";

    /** Locks handed off from a releasing holder to a waiter of the same service, by name. */
    public static final String HAND_OFFS = "distlock.handoffs";

    /** Time held, by name, recorded at release. */
    public static final String HOLD = "distlock.hold";

    /** Lease renewals, by outcome. */
    public static final String RENEWALS = "distlock.renewals";

    /** Leases lost while held, by name. */
    public static final String LEASES_LOST = "distlock.leases.lost";

    /** Locks this instance holds now (a gauge, registered with the lock service). */
    public static final String LOCKS_HELD = "distlock.locks.held";

    private final MeterRegistry registry;

    private final MetricNames names;

    /** Records into the given registry, tagged with declared names only (see {@link MetricNames}). */
    public LockMetrics(MeterRegistry registry) {
        this(registry, new MetricNames());
    }

    /** Records into the given registry, with {@code name} tag values bounded by {@code names}. */
    public LockMetrics(MeterRegistry registry, MetricNames names) {
        this.registry = registry;
        this.names = names;
    }

    /** Binds the {@value #LOCKS_HELD} gauge: the number of {@link LockInspection#heldLocks()}. */
    public static MeterBinder heldLocks(LockInspection lockService) {
        return registry -> Gauge.builder(LOCKS_HELD, lockService, service -> service.heldLocks().size())
            .description("Locks this instance holds now")
            .register(registry);
    }

    @Override
    public void onEvent(LockEvent event) {
        if (event instanceof LockEvent.Acquired acquired) {
            attempt(name(acquired.lock()), LockOutcome.ACQUIRED, acquired.waited());
        }
        else if (event instanceof LockEvent.NotAcquired refused) {
            attempt(this.names.of(refused.key(), refused.name()), LockOutcome.TIMED_OUT, refused.waited());
        }
        else if (event instanceof LockEvent.AcquireFailed failed) {
            attempt(this.names.of(failed.key(), failed.name()), LockOutcome.of(failed.reason()), failed.waited());
        }
        else if (event instanceof LockEvent.Released released) {
            Timer.builder(HOLD)
                .description("How long locks were held, recorded at release")
                .tag("name", name(released.lock()))
                .register(this.registry)
                .record(released.held());
        }
        else if (event instanceof LockEvent.HandedOff handedOff) {
            Counter.builder(HAND_OFFS)
                .description("Locks handed straight from a releasing holder to a waiter of the same service")
                .tag("name", name(handedOff.from()))
                .register(this.registry)
                .increment();
        }
        else if (event instanceof LockEvent.Renewed renewed) {
            renewals("renewed").increment(renewed.count());
        }
        else if (event instanceof LockEvent.RenewalFailed) {
            renewals("failed").increment();
        }
        else if (event instanceof LockEvent.LeaseLost lost) {
            Counter.builder(LEASES_LOST)
                .description("Leases lost while held: the lock was taken or deleted, or Redis was unreachable too long")
                .tag("name", name(lost.lock()))
                .register(this.registry)
                .increment();
        }
        // Acquiring (counted with its outcome) and ReleaseFailed (the lease lost or Redis down, counted there) add
        // no meter of their own
    }

    private String name(LockHandle lock) {
        return this.names.of(lock.key(), lock.name());
    }

    private void attempt(String name, LockOutcome outcome, Duration waited) {
        Counter.builder(ACQUIRE_ATTEMPTS)
            .description("Lock acquire attempts")
            .tag("name", name)
            .tag("outcome", outcome.tagValue())
            .register(this.registry)
            .increment();
        Timer.builder(ACQUIRE_WAIT)
            .description("Time spent acquiring locks")
            .tag("name", name)
            .tag("outcome", outcome.tagValue())
            .register(this.registry)
            .record(waited);
    }

    private Counter renewals(String outcome) {
        return Counter.builder(RENEWALS)
            .description("Lease renewals by the watchdog")
            .tag("outcome", outcome)
            .register(this.registry);
    }
}
