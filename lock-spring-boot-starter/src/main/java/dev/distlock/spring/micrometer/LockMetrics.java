package dev.distlock.spring.micrometer;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockInspection;
import dev.distlock.LockMode;

/**
 * Records lock events as Micrometer meters. Every meter is tagged with the lock's {@linkplain LockHandle#name() name}
 * (never its key, which may hold user ids), bounded by {@link MetricNames}: declared names, at most 100 distinct values
 * by default, the rest counted as {@code other}; and with its {@code mode}, the {@link LockMode} in lower case
 * ({@code exclusive}, {@code read}, {@code write}, {@code fair}, {@code semaphore} or {@code fair_semaphore}), so that
 * a semaphore's waits and losses are told apart from a lock's. The renewal counter, which counts batches across locks,
 * has neither:
 * <ul>
 * <li>{@value #ACQUIRE_ATTEMPTS} (counter) and {@value #ACQUIRE_WAIT} (timer, the time spent acquiring), tagged
 * {@code name}, {@code mode} and {@code outcome}: {@code acquired}, {@code timed_out} (held by another owner, or no
 * permit free, until the wait ended, or at a {@code tryAcquire}'s one attempt), {@code restart_grace} (refused by a
 * Redis younger than its restart grace), {@code redis_error}, {@code interrupted} or {@code failed}. A multi-key acquisition counts one attempt per key, and blocking,
 * non-blocking and reactive calls count alike;</li>
 * <li>{@value #HAND_OFFS} (counter): locks handed straight from a releasing holder to a waiter of the same service,
 * tagged {@code name} and {@code mode};</li>
 * <li>{@value #HOLD} (timer): how long locks and permits were held, recorded at each successful release, tagged
 * {@code name} and {@code mode};</li>
 * <li>{@value #RENEWALS} (counter): leases renewed by the watchdog, tagged {@code outcome} {@code renewed}, or
 * {@code failed} for a renewal that could not reach Redis (retried; the lease stays valid until its deadline);</li>
 * <li>{@value #LEASES_LOST} (counter): leases (of locks or permits) lost while held, tagged {@code name} and
 * {@code mode};</li>
 * <li>{@value #LOCKS_HELD} (gauge, untagged): the locks the service holds now, bound by {@link #heldLocks}; a
 * semaphore acquisition counts as one, however many permits it took;</li>
 * <li>{@value #PERMITS_HELD} (gauge): the semaphore permits this service holds now, tagged {@code name} and
 * {@code mode}, registered at a name's first grant. An acquisition's permits count from its grant until its release,
 * its lost lease, or its lease deadline, whichever comes first.</li>
 * </ul>
 * A lock granted while {@value #MAX_TRACKED} locks are held (never released?) is recorded with the mode
 * {@code unknown} and no permits. It is a {@link LockEventListener}: register it with the lock service's builder; the
 * starter does when a {@link MeterRegistry} bean exists. Recording never calls Redis, never blocks and never throws
 * into a lock operation, nor holds up the lease notifications that follow it.
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

    /** Semaphore permits this instance holds now, by name and mode (a gauge). */
    public static final String PERMITS_HELD = "distlock.permits.held";

    /** The most acquisitions under way and locks held that are tracked at once. */
    public static final int MAX_TRACKED = 100_000;

    private static final String UNKNOWN_MODE = "unknown";

    private static final Log logger = LogFactory.getLog(LockMetrics.class);

    private final MeterRegistry registry;

    private final MetricNames names;

    /** Acquisitions under way, by attempt number, from {@code Acquiring} to their outcome. */
    private final ConcurrentHashMap<Long, Tags> acquiring = new ConcurrentHashMap<>();

    /** Locks and permits held, by handle (handles compare by identity), from grant to release or loss. */
    private final ConcurrentHashMap<LockHandle, Tags> holding = new ConcurrentHashMap<>();

    /** The {@value #PERMITS_HELD} gauges' values, by name and mode. */
    private final ConcurrentHashMap<String, HeldPermits> permitGauges = new ConcurrentHashMap<>();

    private volatile boolean fullReported;

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
        if (event instanceof LockEvent.Acquiring start) {
            started(start);
        }
        else if (event instanceof LockEvent.Acquired acquired) {
            Tags tags = this.acquiring.remove(acquired.attempt());
            if (tags == null) {
                tags = new Tags(name(acquired.lock()), UNKNOWN_MODE, 0);
            }
            attempt(tags.name, tags.mode, LockOutcome.ACQUIRED, acquired.waited());
            holding(acquired.lock(), tags);
        }
        else if (event instanceof LockEvent.NotAcquired refused) {
            Tags tags = ended(refused.attempt(), refused.key(), refused.name());
            attempt(tags.name, tags.mode, LockOutcome.TIMED_OUT, refused.waited());
        }
        else if (event instanceof LockEvent.AcquireFailed failed) {
            Tags tags = ended(failed.attempt(), failed.key(), failed.name());
            attempt(tags.name, tags.mode, LockOutcome.of(failed.reason()), failed.waited());
        }
        else if (event instanceof LockEvent.Released released) {
            Tags tags = stopHolding(released.lock());
            Timer.builder(HOLD)
                .description("How long locks and permits were held, recorded at release")
                .tag("name", tags.name)
                .tag("mode", tags.mode)
                .register(this.registry)
                .record(released.held());
        }
        else if (event instanceof LockEvent.HandedOff handedOff) {
            Tags tags = held(handedOff.from());
            Counter.builder(HAND_OFFS)
                .description("Locks handed straight from a releasing holder to a waiter of the same service")
                .tag("name", tags.name)
                .tag("mode", tags.mode)
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
            Tags tags = stopHolding(lost.lock());
            Counter.builder(LEASES_LOST)
                .description("Leases of locks or permits lost while held: taken or deleted, or Redis was unreachable "
                        + "too long")
                .tag("name", tags.name)
                .tag("mode", tags.mode)
                .register(this.registry)
                .increment();
        }
        else if (event instanceof LockEvent.ReleaseFailed failed) {
            stopHolding(failed.lock()); // the lease lost or Redis down: counted there, no meter of its own
        }
    }

    private void started(LockEvent.Acquiring start) {
        if (this.acquiring.size() >= MAX_TRACKED) {
            full();
            return;
        }
        this.acquiring.put(start.attempt(), new Tags(this.names.of(start.key(), start.name()),
                ModeTags.of(start.mode()), start.mode().isSemaphore() ? start.permits() : 0));
    }

    private Tags ended(long attempt, String key, String name) {
        Tags tags = this.acquiring.remove(attempt);
        return (tags != null) ? tags : new Tags(this.names.of(key, name), UNKNOWN_MODE, 0);
    }

    private void holding(LockHandle lock, Tags tags) {
        if (this.holding.size() >= MAX_TRACKED) {
            // handles with a fixed lease left to run out are never released: forget those first
            for (LockHandle open : this.holding.keySet()) {
                if (!open.isHeld()) {
                    stopHolding(open);
                }
            }
            if (this.holding.size() >= MAX_TRACKED) {
                full();
                return;
            }
        }
        if (tags.permits > 0) {
            HeldPermits gauge = permitGauge(tags);
            tags.gauge = gauge;
            gauge.add(lock, tags.permits);
        }
        this.holding.put(lock, tags); // after the gauge, which a release finds through this map
    }

    private Tags held(LockHandle lock) {
        Tags tags = this.holding.get(lock);
        return (tags != null) ? tags : new Tags(name(lock), UNKNOWN_MODE, 0);
    }

    private Tags stopHolding(LockHandle lock) {
        Tags tags = this.holding.remove(lock);
        if (tags == null) {
            return new Tags(name(lock), UNKNOWN_MODE, 0);
        }
        HeldPermits gauge = tags.gauge;
        if (gauge != null) {
            gauge.remove(lock);
        }
        return tags;
    }

    private HeldPermits permitGauge(Tags tags) {
        return this.permitGauges.computeIfAbsent(tags.name + '\u0000' + tags.mode, id -> {
            HeldPermits permits = new HeldPermits();
            Gauge.builder(PERMITS_HELD, permits, HeldPermits::inUse)
                .description("Semaphore permits this instance holds now")
                .tag("name", tags.name)
                .tag("mode", tags.mode)
                .strongReference(true)
                .register(this.registry);
            return permits;
        });
    }

    private String name(LockHandle lock) {
        return this.names.of(lock.key(), lock.name());
    }

    private void attempt(String name, String mode, LockOutcome outcome, Duration waited) {
        Counter.builder(ACQUIRE_ATTEMPTS)
            .description("Lock and permit acquire attempts")
            .tag("name", name)
            .tag("mode", mode)
            .tag("outcome", outcome.tagValue())
            .register(this.registry)
            .increment();
        Timer.builder(ACQUIRE_WAIT)
            .description("Time spent acquiring locks and permits")
            .tag("name", name)
            .tag("mode", mode)
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

    private void full() {
        if (!this.fullReported) {
            this.fullReported = true;
            logger.warn(MAX_TRACKED + " lock acquisitions or held locks are tracked (locks never released?); further "
                    + "ones are recorded with the mode 'unknown' and without their permits");
        }
    }

    /** The tags of one acquisition, the permits it asked for (0 for a lock), and their gauge once granted. */
    private static final class Tags {

        final String name;

        final String mode;

        final int permits;

        volatile @Nullable HeldPermits gauge;

        Tags(String name, String mode, int permits) {
            this.name = name;
            this.mode = mode;
            this.permits = permits;
        }
    }
}
