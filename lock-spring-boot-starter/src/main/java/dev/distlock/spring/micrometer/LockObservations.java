package dev.distlock.spring.micrometer;

import java.util.concurrent.ConcurrentHashMap;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.spring.ScopedLockHandle;

/**
 * Turns lock events into Micrometer observations, so that traces show the wait for a lock and the time it was held as
 * spans, for blocking, non-blocking and reactive calls alike:
 * <ul>
 * <li>{@value #ACQUIRE} ("acquire &lt;name&gt;") from {@link LockEvent.Acquiring} to the attempt's outcome, with the
 * low-cardinality key values {@code distlock.name}, {@code distlock.mode} and {@code distlock.outcome}
 * ({@code acquired}, {@code timed_out}, {@code redis_error}, {@code interrupted} or {@code failed}); a failure is
 * recorded as its error. A key set has one per key;</li>
 * <li>{@value #LOCKED} ("locked &lt;name&gt;") from the grant to the release, with {@code distlock.name},
 * {@code distlock.mode}, {@code distlock.handed.off} ({@code true} when the release handed the lock straight to a
 * waiter of the same service) and the high-cardinality {@code distlock.fencing.token}; a failed release or a lost
 * lease is recorded as its error and ends it.</li>
 * </ul>
 * The parent of both is the observation current where the acquisition began. Keys never appear (they may hold user
 * ids): locks are labelled with their {@linkplain LockOptions#withName(String) name}, bounded by {@link MetricNames}.
 *
 * <p>Register it as a {@link LockEventListener} of the lock service (the starter does when an
 * {@link ObservationRegistry} bean exists). {@link ObservedLockService} opens a lock's {@value #LOCKED} scope around
 * the work done under it. A handle that is never released (a fixed lease left to run out) keeps its observation open
 * until {@value #MAX_OPEN} are open: then the observations of handles no longer held end, and locks granted while that
 * many are still held are not observed.
 */
public final class LockObservations implements LockEventListener {

    /** The observation of acquiring a lock. */
    public static final String ACQUIRE = "distlock.acquire";

    /** The observation of holding a lock, from grant to release. */
    public static final String LOCKED = "distlock.locked";

    /** The most acquisitions and held locks observed at once. */
    public static final int MAX_OPEN = 100_000;

    private static final Log logger = LogFactory.getLog(LockObservations.class);

    private final ObservationRegistry registry;

    private final MetricNames names;

    /** Open acquire observations by attempt number. */
    private final ConcurrentHashMap<Long, Acquisition> acquiring = new ConcurrentHashMap<>();

    /** Open locked observations by handle (handles compare by identity). */
    private final ConcurrentHashMap<LockHandle, Observation> locked = new ConcurrentHashMap<>();

    /** The most acquisitions and held locks observed at once: {@link #MAX_OPEN}, less in tests. */
    private final int maxOpen;

    private volatile boolean fullReported;

    /** Observes into {@code registry}, with {@code distlock.name} values bounded by {@code names}. */
    public LockObservations(ObservationRegistry registry, MetricNames names) {
        this(registry, names, MAX_OPEN);
    }

    LockObservations(ObservationRegistry registry, MetricNames names, int maxOpen) {
        this.registry = registry;
        this.names = names;
        this.maxOpen = maxOpen;
    }

    @Override
    public void onEvent(LockEvent event) {
        if (this.registry.isNoop()) {
            return;
        }
        if (event instanceof LockEvent.Acquiring start) {
            started(start);
        }
        else if (event instanceof LockEvent.Acquired acquired) {
            Acquisition acquisition = this.acquiring.remove(acquired.attempt());
            if (acquisition != null) {
                acquisition.end(LockOutcome.ACQUIRED, null);
                holding(acquired.lock(), acquisition);
            }
        }
        else if (event instanceof LockEvent.NotAcquired refused) {
            end(refused.attempt(), LockOutcome.TIMED_OUT, null);
        }
        else if (event instanceof LockEvent.AcquireFailed failed) {
            end(failed.attempt(), LockOutcome.of(failed.reason()), failed.reason());
        }
        else if (event instanceof LockEvent.HandedOff handedOff) {
            Observation holding = this.locked.get(handedOff.from());
            if (holding != null) {
                holding.lowCardinalityKeyValue("distlock.handed.off", "true");
            }
        }
        else if (event instanceof LockEvent.Released released) {
            stopHolding(released.lock(), null);
        }
        else if (event instanceof LockEvent.ReleaseFailed failed) {
            stopHolding(failed.lock(), failed.reason());
        }
        else if (event instanceof LockEvent.LeaseLost lost) {
            stopHolding(lost.lock(), lost.reason());
        }
        else if (event instanceof LockEvent.RenewalFailed failed) {
            Observation holding = this.locked.get(failed.lock());
            if (holding != null) {
                holding.event(Observation.Event.of("distlock.renewal.failed", "renewal failed, retried"));
            }
        }
        // Renewed counts batches across locks: a metric (see LockMetrics), no observation
    }

    /**
     * Opens, on this thread, the scope of the {@value #LOCKED} observation of {@code lock}, as handed out by the
     * service; a scope that does nothing when the lock is not observed.
     */
    public ScopedLockHandle.Scope openScope(LockHandle lock) {
        Observation holding = this.locked.get(lock);
        if (holding == null) {
            return () -> {
            };
        }
        Observation.Scope scope = holding.openScope();
        return scope::close;
    }

    private void started(LockEvent.Acquiring start) {
        if (this.acquiring.size() >= this.maxOpen) {
            full();
            return;
        }
        String name = this.names.of(start.key(), start.name());
        String mode = ModeTags.of(start.mode());
        Observation parent = this.registry.getCurrentObservation();
        Observation observation = Observation.createNotStarted(ACQUIRE, this.registry)
            .parentObservation(parent)
            .contextualName("acquire " + name)
            .lowCardinalityKeyValue("distlock.name", name)
            .lowCardinalityKeyValue("distlock.mode", mode)
            .start();
        this.acquiring.put(start.attempt(), new Acquisition(observation, name, mode, parent));
    }

    private void end(long attempt, LockOutcome outcome, @Nullable LockException failure) {
        Acquisition acquisition = this.acquiring.remove(attempt);
        if (acquisition != null) {
            acquisition.end(outcome, failure);
        }
    }

    private void holding(LockHandle lock, Acquisition acquisition) {
        if (this.locked.size() >= this.maxOpen) {
            // handles with a fixed lease left to run out are never released: their observations end first
            for (LockHandle open : this.locked.keySet()) {
                if (!open.isHeld()) {
                    stopHolding(open, null);
                }
            }
            if (this.locked.size() >= this.maxOpen) {
                full();
                return;
            }
        }
        Observation observation = Observation.createNotStarted(LOCKED, this.registry)
            .parentObservation(acquisition.parent)
            .contextualName("locked " + acquisition.name)
            .lowCardinalityKeyValue("distlock.name", acquisition.name)
            .lowCardinalityKeyValue("distlock.mode", acquisition.mode)
            .lowCardinalityKeyValue("distlock.handed.off", "false")
            .highCardinalityKeyValue("distlock.fencing.token", Long.toString(lock.fencingToken()))
            .start();
        this.locked.put(lock, observation);
    }

    private void stopHolding(LockHandle lock, @Nullable LockException failure) {
        Observation observation = this.locked.remove(lock);
        if (observation != null) {
            if (failure != null) {
                observation.error(failure);
            }
            observation.stop();
        }
    }

    private void full() {
        if (!this.fullReported) {
            this.fullReported = true;
            logger.warn(this.maxOpen + " lock observations are open (locks never released?); further locks are not "
                    + "observed until some end");
        }
    }

    private record Acquisition(Observation observation, String name, String mode, @Nullable Observation parent) {

        void end(LockOutcome outcome, @Nullable LockException failure) {
            this.observation.lowCardinalityKeyValue("distlock.outcome", outcome.tagValue());
            if (failure != null) {
                this.observation.error(failure);
            }
            this.observation.stop();
        }
    }
}
