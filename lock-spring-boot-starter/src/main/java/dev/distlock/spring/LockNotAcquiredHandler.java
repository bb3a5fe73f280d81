package dev.distlock.spring;

import org.jspecify.annotations.Nullable;

/**
 * Decides what a {@link DistributedLock} method returns when its lock could not be acquired in time, for methods
 * declared with {@link OnNotAcquired#CALL_HANDLER}. Runs on the caller's thread, holding no lock.
 *
 * <pre>{@code
 * @Bean
 * LockNotAcquiredHandler busyReport() {
 *     return event -> Report.busy(event.key());
 * }
 * }</pre>
 */
@FunctionalInterface
public interface LockNotAcquiredHandler {

    /**
     * Returns the value the method call returns instead (it must fit the method's return type, and be non-null for a
     * primitive one), or throws what the call throws.
     */
    @Nullable Object handle(LockNotAcquiredEvent event) throws Throwable;
}
