package dev.distlock.spring.micrometer;

import java.util.Collection;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.distlock.AsyncLockService;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.MultiLockHandle;
import dev.distlock.spring.ScopedLockHandle;

/**
 * A {@link LockService} that reports to Micrometer's {@link ObservationRegistry}, so that traces show the wait for a
 * lock and the time it was held as spans:
 * <ul>
 * <li>{@value #ACQUIRE} ("acquire &lt;name&gt;") around every acquire and try, with the low-cardinality key values
 * {@code distlock.name}, {@code distlock.mode} and {@code distlock.outcome} ({@code acquired}, {@code timed_out},
 * {@code redis_error}, {@code interrupted} or {@code failed}); an exception is recorded as its error;</li>
 * <li>{@value #LOCKED} ("locked &lt;name&gt;") from the grant to the release, with {@code distlock.name},
 * {@code distlock.mode} and the high-cardinality {@code distlock.fencing.token}; a failed release is recorded as its
 * error.</li>
 * </ul>
 * Keys never appear in an observation (they may hold user ids): locks are labelled with their
 * {@linkplain LockOptions#withName(String) name}.
 *
 * <p>The work of {@link #executeLocked} and of a {@link dev.distlock.spring.DistributedLock} method runs inside the
 * {@value #LOCKED} observation's scope, so the spans it starts are the lock's children. The handles returned by
 * {@link #acquire} are {@link ScopedLockHandle}s: open their scope for the same effect.
 */
public final class ObservedLockService implements LockService {

    /** The observation of acquiring a lock. */
    public static final String ACQUIRE = "distlock.acquire";

    /** The observation of holding a lock, from grant to release. */
    public static final String LOCKED = "distlock.locked";

    private static final String UNNAMED = "unnamed";

    private final LockService lockService;

    private final ObservationRegistry registry;

    private final MetricNames names;

    /** Observes the locks of {@code lockService}, named by declared names only (see {@link MetricNames}). */
    public ObservedLockService(LockService lockService, ObservationRegistry registry) {
        this(lockService, registry, new MetricNames());
    }

    /** Observes the locks of {@code lockService}, with {@code distlock.name} values bounded by {@code names}. */
    public ObservedLockService(LockService lockService, ObservationRegistry registry, MetricNames names) {
        this.lockService = lockService;
        this.registry = registry;
        this.names = names;
    }

    /** The observed service's non-blocking side, not observed yet. */
    @Override
    public AsyncLockService async() {
        return this.lockService.async();
    }

    @Override
    public LockHandle acquire(String key, LockOptions options) {
        String name = name(key, options);
        LockHandle lock = acquiring(name, options, () -> this.lockService.acquire(key, options), held -> true);
        return observeHolding(lock, name, options);
    }

    @Override
    public Optional<LockHandle> tryAcquire(String key, LockOptions options) {
        String name = name(key, options);
        return acquiring(name, options, () -> this.lockService.tryAcquire(key, options), Optional::isPresent)
            .map(lock -> observeHolding(lock, name, options));
    }

    @Override
    public <T, E extends Exception> T executeLocked(String key, LockOptions options, LockedWork<T, E> work) throws E {
        requireWork(work);
        return runLocked((ObservedLockHandle) acquire(key, options), work);
    }

    @Override
    public MultiLockHandle acquireAll(Collection<String> keys, LockOptions options) {
        String name = setName(keys, options);
        MultiLockHandle locks = acquiring(name, options, () -> this.lockService.acquireAll(keys, options),
                held -> true);
        return (MultiLockHandle) observeHolding(locks, name, options);
    }

    @Override
    public Optional<MultiLockHandle> tryAcquireAll(Collection<String> keys, LockOptions options) {
        String name = setName(keys, options);
        return acquiring(name, options, () -> this.lockService.tryAcquireAll(keys, options), Optional::isPresent)
            .map(locks -> (MultiLockHandle) observeHolding(locks, name, options));
    }

    @Override
    public <T, E extends Exception> T executeLockedAll(Collection<String> keys, LockOptions options,
            LockedWork<T, E> work) throws E {
        requireWork(work);
        return runLocked((ObservedLockHandle) acquireAll(keys, options), work);
    }

    /** Runs {@code acquire} inside an {@value #ACQUIRE} observation; {@code granted} tells whether it got the lock. */
    private <T> T acquiring(String name, @Nullable LockOptions options, Supplier<T> acquire,
            Predicate<T> granted) {
        Observation observation = Observation.createNotStarted(ACQUIRE, this.registry)
            .contextualName("acquire " + name)
            .lowCardinalityKeyValue("distlock.name", name)
            .lowCardinalityKeyValue("distlock.mode", mode(options))
            .start();
        try (Observation.Scope scope = observation.openScope()) {
            T result = acquire.get();
            LockOutcome outcome = granted.test(result) ? LockOutcome.ACQUIRED : LockOutcome.TIMED_OUT;
            observation.lowCardinalityKeyValue("distlock.outcome", outcome.tagValue());
            return result;
        }
        catch (RuntimeException | Error ex) {
            observation.lowCardinalityKeyValue("distlock.outcome", LockOutcome.of(ex).tagValue());
            observation.error(ex);
            throw ex;
        }
        finally {
            observation.stop();
        }
    }

    /** Starts the {@value #LOCKED} observation of a granted lock, stopped by the returned handle's release. */
    private ObservedLockHandle observeHolding(LockHandle lock, String name, LockOptions options) {
        Observation observation = Observation.createNotStarted(LOCKED, this.registry)
            .contextualName("locked " + name)
            .lowCardinalityKeyValue("distlock.name", name)
            .lowCardinalityKeyValue("distlock.mode", mode(options))
            .highCardinalityKeyValue("distlock.fencing.token", Long.toString(lock.fencingToken()))
            .start();
        return (lock instanceof MultiLockHandle locks) ? new ObservedMultiLockHandle(locks, observation)
                : new ObservedLockHandle(lock, observation);
    }

    /** Runs the work in the lock's scope and releases it, with the failure rules of {@link #executeLocked}. */
    private static <T, E extends Exception> T runLocked(ObservedLockHandle lock, LockedWork<T, E> work) throws E {
        T result;
        try (ScopedLockHandle.Scope scope = lock.openScope()) {
            result = work.run(lock);
        }
        catch (Throwable ex) {
            try {
                lock.release();
            }
            catch (RuntimeException releaseFailure) {
                ex.addSuppressed(releaseFailure);
            }
            throw ex;
        }
        lock.release();
        return result;
    }

    private static void requireWork(@Nullable LockedWork<?, ?> work) {
        if (work == null) {
            throw new IllegalArgumentException("work must not be null");
        }
    }

    /** The lock's name; bad input gets a placeholder here and its exception from the lock service. */
    private String name(@Nullable String key, @Nullable LockOptions options) {
        if (options != null && options.name() != null) {
            return this.names.declared(options.name());
        }
        return (key == null) ? UNNAMED : this.names.of(key, LockOptions.defaults().nameFor(key));
    }

    /** The name a {@link MultiLockHandle} of these keys will have (see there). */
    private String setName(@Nullable Collection<String> keys, @Nullable LockOptions options) {
        if (options != null && options.name() != null) {
            return this.names.declared(options.name());
        }
        if (keys == null) {
            return UNNAMED;
        }
        String names = keys.stream()
            .filter(Objects::nonNull)
            .sorted()
            .map(key -> name(key, options))
            .distinct()
            .collect(Collectors.joining("+"));
        return names.isEmpty() ? UNNAMED : this.names.declared(names);
    }

    private static String mode(@Nullable LockOptions options) {
        return ((options != null) ? options.mode() : LockOptions.defaults().mode()).name().toLowerCase(Locale.ROOT);
    }
}
