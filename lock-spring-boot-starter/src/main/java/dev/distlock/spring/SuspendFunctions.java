package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.BeanUtils;
import org.springframework.core.MethodParameter;
import org.springframework.util.ClassUtils;

import dev.distlock.LockHandle;

/**
 * Kotlin {@code suspend} functions under {@link DistributedLock}, without a Kotlin dependency here: Spring Framework's
 * proxy runs such a function as a {@code Mono} (with kotlinx-coroutines-reactor and kotlin-reflect present), which is
 * locked as a {@link ResultStyle#MONO} result; lock-kotlin's adapter, found by name, puts the lock in the function's
 * coroutine context. Without lock-kotlin such functions are refused at startup.
 */
final class SuspendFunctions {

    /** lock-kotlin's {@code BiFunction<continuation, lock, continuation with the lock in its context>}. */
    private static final String ADAPTER = "dev.distlock.kotlin.spring.SuspendFunctionLockContext";

    private static final String CONTINUATION = "kotlin.coroutines.Continuation";

    private static final String FLOW = "kotlinx.coroutines.flow.Flow";

    /** The adapter, once per bean class (and so per class loader). */
    private static final ClassValue<BiFunction<Object, LockHandle, Object>> ADAPTERS = new ClassValue<>() {

        @Override
        @SuppressWarnings("unchecked")
        protected BiFunction<Object, LockHandle, Object> computeValue(Class<?> type) {
            return BeanUtils.instantiateClass(ClassUtils.resolveClassName(ADAPTER, type.getClassLoader()),
                    BiFunction.class);
        }
    };

    private SuspendFunctions() {
    }

    static boolean isSuspendFunction(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        return parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION);
    }

    /**
     * Checks that the suspend function can be locked until it completes.
     *
     * @throws IllegalArgumentException saying what to add, or why its result could not be locked
     */
    static void check(Method method, @Nullable ClassLoader classLoader) {
        List<String> missing = new ArrayList<>();
        if (!ClassUtils.isPresent(ADAPTER, classLoader)) {
            missing.add("dev.distlock:lock-kotlin");
        }
        if (!ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", classLoader)) {
            missing.add("org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
        }
        if (!ClassUtils.isPresent("kotlin.reflect.full.KClasses", classLoader)) {
            missing.add("org.jetbrains.kotlin:kotlin-reflect");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("it is a Kotlin suspend function, which @DistributedLock locks until "
                    + "it completes only with " + String.join(", ", missing) + " on the class path; add "
                    + ((missing.size() == 1) ? "it" : "them") + " (without, its work would run on after the lock "
                    + "was released)");
        }
        if (new MethodParameter(method, -1).getParameterType().getName().equals(FLOW)) {
            throw new IllegalArgumentException("it is a suspend function that returns a Flow, whose values would be "
                    + "produced after the lock was released; collect the flow inside the function, or return a Flux");
        }
    }

    /** Whether {@link OnNotAcquired#SKIP}'s null fits the function's Kotlin return type: nullable, or Unit. */
    static boolean returnsNullable(Method method) {
        MethodParameter returned = new MethodParameter(method, -1);
        return returned.getParameterType() == void.class || returned.isOptional();
    }

    /** Gives the invocation a continuation whose coroutine context holds the lock, where Spring allows it. */
    static void putInContext(LockHandle lock, MethodInvocation invocation) {
        if (invocation instanceof ProxyMethodInvocation proxied) {
            Object[] arguments = proxied.getArguments().clone();
            int last = arguments.length - 1;
            arguments[last] = ADAPTERS.get(proxied.getMethod().getDeclaringClass()).apply(arguments[last], lock);
            proxied.setArguments(arguments);
        }
    }
}
