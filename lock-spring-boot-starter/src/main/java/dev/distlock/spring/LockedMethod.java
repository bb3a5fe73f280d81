package dev.distlock.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;

import dev.distlock.LockOptions;

/**
 * A {@link DistributedLock} method with its declaration resolved and checked: the parsed key, the lock options, and
 * what to do when the lock is not acquired ({@link OnNotAcquired#DEFAULT} already replaced).
 *
 * @param method the method the annotation was found on, or which implements an annotated interface method
 * @param keyText the key expression as declared
 * @param key the parsed key expression
 * @param options the type of lock, wait time, lease and name
 * @param holdAtLeast the least time to hold the lock after acquisition, or null
 * @param onNotAcquired {@link OnNotAcquired#THROW}, {@link OnNotAcquired#SKIP} or {@link OnNotAcquired#CALL_HANDLER}
 * @param handlerName the handler bean's name with {@link OnNotAcquired#CALL_HANDLER}, otherwise empty
 * @param style how the method delivers its result, which decides how long the lock is held
 */
record LockedMethod(Method method, String keyText, Expression key, LockOptions options, @Nullable Duration holdAtLeast,
        OnNotAcquired onNotAcquired, String handlerName, ResultStyle style) {

    /**
     * What the method returns when skipped: an empty result for a future or publisher, an empty optional for the
     * optional types, otherwise null.
     */
    @Nullable Object skippedResult() {
        if (this.style != ResultStyle.BLOCKING) {
            return this.style.emptyResult();
        }
        Class<?> type = this.method.getReturnType();
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type == OptionalInt.class) {
            return OptionalInt.empty();
        }
        if (type == OptionalLong.class) {
            return OptionalLong.empty();
        }
        if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        }
        return null;
    }

    /** {@code OrderService.reserve(String, int)}: the short names of the class and the parameter types. */
    static String describe(Method method) {
        return ClassUtils.getShortName(method.getDeclaringClass()) + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                    .map(Class::getSimpleName)
                    .collect(Collectors.joining(", ", "(", ")"));
    }
}
