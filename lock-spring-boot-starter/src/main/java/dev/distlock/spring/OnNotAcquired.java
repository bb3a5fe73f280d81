package dev.distlock.spring;

/** What a {@link DistributedLock} method does when the lock stays held by another owner for the whole wait. */
public enum OnNotAcquired {

    /** Use the application's default, {@code distlock.on-not-acquired} ({@link #THROW} unless configured). */
    DEFAULT,

    /** Throw the {@link dev.distlock.LockTimeoutException}. */
    THROW,

    /**
     * Do not run the method: return null, an empty {@code Optional} ({@code OptionalInt}, ...), or nothing for
     * {@code void}. Not allowed on methods returning a primitive, nor on a Kotlin suspend function whose return type
     * is not nullable (or {@code Unit}); that fails startup.
     */
    SKIP,

    /**
     * Return what the {@link LockNotAcquiredHandler} bean named by {@link DistributedLock#notAcquiredHandler()}
     * returns, or throw what it throws.
     */
    CALL_HANDLER
}
