package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockTimeoutException;

/**
 * A {@link DistributedLock} call turned away because the lock stayed held by another owner.
 *
 * @param method the annotated method that was not invoked
 * @param arguments the call's arguments (unmodifiable; elements may be null)
 * @param key the evaluated lock key
 * @param exception the timeout, with how long the call waited
 */
public record LockNotAcquiredEvent(Method method, List<@Nullable Object> arguments, String key,
        LockTimeoutException exception) {
}
