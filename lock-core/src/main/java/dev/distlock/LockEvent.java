package dev.distlock;

import java.time.Duration;

/**
 * Something that happened to a lock, as a {@link LockEventListener} receives it: one record per kind of event. The
 * type is sealed, so a {@code switch} over it (or {@link Class#getPermittedSubclasses()}) sees every kind.
 *
 * <p>An acquisition is {@link Acquiring}, then exactly one of {@link Acquired}, {@link NotAcquired} or
 * {@link AcquireFailed}, all with the same {@code attempt} number; a multi-key acquisition is one such sequence per
 * key. A lock taken by a {@linkplain HandedOff hand-off} is still {@link Acquired} by its waiter. A held lock ends in
 * {@link Released}, {@link ReleaseFailed} or, while held, {@link LeaseLost}.
 *
 * <p>Events name locks by their {@linkplain LockHandle#name() name} and carry the key too: label metrics with the
 * name, never the key (see {@link LockOptions#withName(String)}).
 */
public sealed interface LockEvent {

    /**
     * An acquisition began: {@code acquire}, {@code tryAcquire}, their non-blocking forms, or one key of a key set.
     *
     * @param attempt the number shared by this acquisition's events, unique within the JVM
     * @param name the lock's name (see {@link LockOptions#nameFor(String)})
     * @param permits the permits a semaphore acquisition asks for ({@link LockOptions#permits()}); 0 for a lock
     */
    record Acquiring(long attempt, String key, String name, LockMode mode, int permits) implements LockEvent {

        /** An acquisition of a lock, which takes no permits. */
        public Acquiring(long attempt, String key, String name, LockMode mode) {
            this(attempt, key, name, mode, 0);
        }
    }

    /** The acquisition {@code attempt} got the lock (or re-entered it) after waiting {@code waited}. */
    record Acquired(long attempt, LockHandle lock, Duration waited) implements LockEvent {
    }

    /**
     * The acquisition {@code attempt} was refused: the lock stayed held by another owner for the whole wait
     * ({@code waited} is about zero for a {@code tryAcquire} that found it held).
     */
    record NotAcquired(long attempt, String key, String name, Duration waited) implements LockEvent {
    }

    /**
     * The acquisition {@code attempt} failed for another reason: {@link LockUnavailableException} when Redis failed,
     * {@link LockInterruptedException} when the waiting thread was interrupted or the caller cancelled the future of
     * a non-blocking call, {@link LockPermissionException} when Redis refused the commands.
     */
    record AcquireFailed(long attempt, String key, String name, Duration waited, LockException reason)
            implements LockEvent {
    }

    /**
     * The holder {@code from} released the lock straight to {@code to}, a waiter of the same service, in one call to
     * Redis. {@code to}'s waiter then reports {@link Acquired}, and {@code from} {@link Released}.
     */
    record HandedOff(LockHandle from, LockHandle to) implements LockEvent {
    }

    /** The watchdog extended {@code count} leases in one batch. */
    record Renewed(int count) implements LockEvent {
    }

    /** A renewal could not reach Redis; the lease stays valid until its deadline and renewal is retried. */
    record RenewalFailed(LockHandle lock, Exception reason) implements LockEvent {
    }

    /** A held lease was lost; the holder's {@link LockHandle#onLeaseLost} callbacks are called after this event. */
    record LeaseLost(LockHandle lock, LeaseLostException reason) implements LockEvent {
    }

    /** The lock was released after being held for {@code held}. */
    record Released(LockHandle lock, Duration held) implements LockEvent {
    }

    /** A release failed: the lease was already lost, or Redis could not be reached. */
    record ReleaseFailed(LockHandle lock, LockException reason) implements LockEvent {
    }
}
