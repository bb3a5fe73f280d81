package dev.distlock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * The {@code #root} object of a {@link DistributedLock#key()} expression: {@code #root.methodName},
 * {@code #root.args}, {@code #root.target}, {@code #root.targetClass}.
 */
public final class LockKeyRoot {

    private final Method method;

    private final @Nullable Object[] args;

    private final @Nullable Object target;

    private final Class<?> targetClass;

    LockKeyRoot(Method method, @Nullable Object[] args, @Nullable Object target, Class<?> targetClass) {
        this.method = method;
        this.args = args;
        this.target = target;
        this.targetClass = targetClass;
    }

    public Method getMethod() {
        return this.method;
    }

    public String getMethodName() {
        return this.method.getName();
    }

    public @Nullable Object[] getArgs() {
        return this.args;
    }

    public @Nullable Object getTarget() {
        return this.target;
    }

    public Class<?> getTargetClass() {
        return this.targetClass;
    }
}
