package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.util.ClassUtils;

/**
 * How a {@link DistributedLock} method delivers its result, which decides how long its lock is held: until it returns
 * (blocking), or until the future or publisher it returns (or the suspend function) completes.
 */
enum ResultStyle {

    /** The method's work is done when it returns; Spring's {@code @Async} methods too (locked on the executor). */
    BLOCKING,

    /** Returns a {@code CompletableFuture} or {@code CompletionStage}: locked until it completes. */
    FUTURE,

    /** Returns Reactor's {@code Mono}: locked from subscription until it completes, fails or is cancelled. */
    MONO,

    /** Returns Reactor's {@code Flux} or a Reactive Streams {@code Publisher}: as {@link #MONO}. */
    FLUX,

    /**
     * A Kotlin {@code suspend} function (with lock-kotlin): locked from the call until it completes. Spring's proxy
     * runs it as a {@code Mono}, so it is locked as {@link #MONO} is.
     */
    SUSPEND;

    private static final String MONO_TYPE = "reactor.core.publisher.Mono";

    private static final String FLUX_TYPE = "reactor.core.publisher.Flux";

    /** Return types whose work goes on after the method returns (a Kotlin Flow runs when it is collected). */
    private static final Set<String> ASYNCHRONOUS_TYPES = Set.of("java.util.concurrent.CompletionStage",
            "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher", "kotlinx.coroutines.flow.Flow");

    /**
     * The method's style.
     *
     * @param classLoader the application's, where lock-kotlin is looked for
     * @throws IllegalArgumentException for an asynchronous method whose lock could not be held for its work: a Kotlin
     * {@code suspend} function without lock-kotlin or returning a {@code Flow}, or a future or publisher type that
     * distlock cannot return
     */
    static ResultStyle of(Method method, Class<?> targetClass, @Nullable ClassLoader classLoader) {
        if (AnnotatedElementUtils.hasAnnotation(method, Async.class)
                || AnnotatedElementUtils.hasAnnotation(targetClass, Async.class)) {
            return BLOCKING; // Spring's @Async advice runs outside the lock: the lock wraps the work on the executor
        }
        if (SuspendFunctions.isSuspendFunction(method)) {
            SuspendFunctions.check(method, classLoader);
            return SUSPEND;
        }
        Class<?> returnType = method.getReturnType();
        Class<?> asynchronous = asynchronousSupertype(returnType);
        if (asynchronous == null) {
            return BLOCKING;
        }
        if (returnType.isAssignableFrom(CompletableFuture.class)) {
            return FUTURE;
        }
        if (returnType.getName().equals(MONO_TYPE)) {
            return MONO;
        }
        if (isAssignableFromClassNamed(returnType, FLUX_TYPE)) {
            return FLUX;
        }
        throw new IllegalArgumentException("the method returns " + ClassUtils.getShortName(returnType)
                + (asynchronous == returnType ? "" : " (a " + ClassUtils.getShortName(asynchronous) + ")")
                + ", whose work may go on after the method returns; @DistributedLock holds the lock until the result "
                + "completes only for CompletableFuture, CompletionStage, Mono, Flux and Publisher results");
    }

    /** What the method returns when {@link OnNotAcquired#SKIP} skips it: an empty result of its type. */
    @Nullable Object emptyResult() {
        return switch (this) {
            case FUTURE -> CompletableFuture.completedFuture(null);
            case MONO, FLUX, SUSPEND -> ReactiveLockedCall.empty(this);
            case BLOCKING -> null;
        };
    }

    private static boolean isAssignableFromClassNamed(Class<?> type, String name) {
        try {
            return type.isAssignableFrom(ClassUtils.forName(name, type.getClassLoader()));
        }
        catch (ClassNotFoundException | LinkageError ex) {
            return false;
        }
    }

    /** The type itself, or its superclass or interface, that is one of the asynchronous types; null if none. */
    private static @Nullable Class<?> asynchronousSupertype(@Nullable Class<?> type) {
        if (type == null || type.isPrimitive()) {
            return null;
        }
        if (ASYNCHRONOUS_TYPES.contains(type.getName())) {
            return type;
        }
        Class<?> found = asynchronousSupertype(type.getSuperclass());
        for (int i = 0; found == null && i < type.getInterfaces().length; i++) {
            found = asynchronousSupertype(type.getInterfaces()[i]);
        }
        return found;
    }
}
