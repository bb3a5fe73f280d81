package dev.distlock.spring.micrometer;

import java.time.Duration;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInspection;
import dev.distlock.LockListener;

/**
 * Records lock events as Micrometer meters. Every meter is tagged with the lock's {@linkplain LockHandle#name() name}
 * (never its key, which may hold user ids), bounded by {@link MetricNames}: declared names, at most 100 distinct values
 * by default, the rest counted as {@code other}. The renewal counter, which counts batches across locks, has no name:
 * <ul>
 * <li>{@value #ACQUIRE_ATTEMPTS} (counter) and {@value #ACQUIRE_WAIT} (timer, the time spent acquiring), tagged
 * {@code name} and {@code outcome}: {@code acquired}, {@code timed_out} (held by another owner until the wait ended,
 * or at a {@code tryAcquire}'s one attempt), {@code redis_error}, {@code interrupted} or {@code failed}. A multi-key
 * acquisition counts one attempt per key;</li>
 * <li>{@value #HOLD} (timer): how long locks were held, recorded at each successful release, tagged {@code name};</li>
 * <li>{@value #RENEWALS} (counter): leases renewed by the watchdog, tagged {@code outcome} {@code renewed}, or
 * {@code failed} for a renewal that could not reach Redis (retried; the lease stays valid until its deadline);</li>
 * <li>{@value #LEASES_LOST} (counter): leases lost while held, tagged {@code name};</li>
 * <li>{@value #LOCKS_HELD} (gauge, untagged): the locks the service holds now, bound by {@link #heldLocks}.</li>
 * </ul>
 * Register it as a {@link LockListener} of the lock service; the starter does when a {@link MeterRegistry} bean exists.
 */
public final class LockMetrics implements LockListener {

    /** Acquire attempts, by name and outcome. */
    public static final String ACQUIRE_ATTEMPTS = "distlock.acquire.attempts";

    /** Time spent acquiring, by name and outcome. */
    public static final String ACQUIRE_WAIT = "distlock.acquire.wait";

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
    public void acquired(LockHandle lock, Duration waited) {
        attempt(this.names.of(lock.key(), lock.name()), LockOutcome.ACQUIRED, waited);
    }

    @Override
    public void notAcquired(String key, String name, Duration waited) {
        attempt(this.names.of(key, name), LockOutcome.TIMED_OUT, waited);
    }

    @Override
    public void acquireFailed(String key, String name, Duration waited, LockException reason) {
        attempt(this.names.of(key, name), LockOutcome.of(reason), waited);
    }

    @Override
    public void released(LockHandle lock, Duration held) {
        Timer.builder(HOLD)
            .description("How long locks were held, recorded at release")
            .tag("name", this.names.of(lock.key(), lock.name()))
            .register(this.registry)
            .record(held);
    }

    @Override
    public void renewed(int count) {
        renewals("renewed").increment(count);
    }

    @Override
    public void renewalFailed(LockHandle lock, Exception reason) {
        renewals("failed").increment();
    }

    @Override
    public void leaseLost(LockHandle lock, LeaseLostException reason) {
        Counter.builder(LEASES_LOST)
            .description("Leases lost while held: the lock was taken or deleted, or Redis was unreachable too long")
            .tag("name", this.names.of(lock.key(), lock.name()))
            .register(this.registry)
            .increment();
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
