package dev.distlock.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.expression.Expression;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.distlock.LockOptions;
import dev.distlock.LockService;

/**
 * Finds the {@link DistributedLock} methods of bean classes, checks their declarations, and caches the result per
 * method and per class. Thread-safe.
 */
final class LockedMethods {

    private final Map<AnnotatedElementKey, Optional<LockedMethod>> methods = new ConcurrentHashMap<>(256);

    private final Map<Class<?>, Boolean> classes = new ConcurrentHashMap<>(256);

    private final Set<Class<?>> warnedClasses = ConcurrentHashMap.newKeySet();

    private final ConfigurableBeanFactory beanFactory;

    private final Supplier<OnNotAcquired> defaultOnNotAcquired;

    private final LockKeyExpressions expressions;

    LockedMethods(ConfigurableBeanFactory beanFactory, Supplier<OnNotAcquired> defaultOnNotAcquired) {
        this.beanFactory = beanFactory;
        this.defaultOnNotAcquired = defaultOnNotAcquired;
        this.expressions = new LockKeyExpressions(beanFactory);
    }

    LockKeyExpressions expressions() {
        return this.expressions;
    }

    ConfigurableBeanFactory beanFactory() {
        return this.beanFactory;
    }

    /**
     * Whether the class has {@link DistributedLock} methods. The first call for a class checks all of them and warns
     * about self-invocations.
     *
     * @throws IllegalStateException naming the method, when a declaration is invalid
     */
    boolean hasLockedMethods(Class<?> targetClass) {
        // Not computeIfAbsent: inspecting may create beans, whose proxying calls back here for other classes.
        Boolean known = this.classes.get(targetClass);
        if (known == null) {
            known = inspect(targetClass);
            this.classes.put(targetClass, known);
        }
        return known;
    }

    private boolean inspect(Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        if (!AnnotationUtils.isCandidateClass(userClass, DistributedLock.class)) {
            return false;
        }
        Set<Class<?>> types = new LinkedHashSet<>();
        types.add(userClass);
        types.addAll(ClassUtils.getAllInterfacesForClassAsSet(userClass));
        Map<Method, LockedMethod> found = new LinkedHashMap<>();
        for (Class<?> type : types) {
            for (Method method : ReflectionUtils.getAllDeclaredMethods(type)) {
                if (method.isSynthetic() && Modifier.isStatic(method.getModifiers())) {
                    continue; // made by a compiler, such as Kotlin's reserve$suspendImpl with reserve's annotations
                }
                LockedMethod locked = find(method, targetClass);
                if (locked != null) {
                    found.putIfAbsent(locked.method(), locked);
                }
            }
        }
        if (found.isEmpty()) {
            return false;
        }
        if (this.warnedClasses.add(userClass)) {
            SelfInvocations.warnIfAny(userClass, found.keySet());
        }
        return true;
    }

    /**
     * The resolved declaration of the method as called on the target class, or null when it is not annotated.
     *
     * @throws IllegalStateException naming the method, when the declaration is invalid
     */
    @Nullable LockedMethod find(Method method, Class<?> targetClass) {
        AnnotatedElementKey key = new AnnotatedElementKey(method, targetClass);
        Optional<LockedMethod> known = this.methods.get(key);
        if (known == null) {
            known = Optional.ofNullable(resolve(method, targetClass));
            this.methods.put(key, known);
        }
        return known.orElse(null);
    }

    private @Nullable LockedMethod resolve(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        if (annotation == null) {
            return null;
        }
        try {
            return resolve(specific, targetClass, annotation);
        }
        catch (IllegalArgumentException ex) {
            // The check's own exception adds nothing but its message; keep what caused it, if anything.
            throw new IllegalStateException(
                    "Invalid @DistributedLock on " + LockedMethod.describe(specific) + ": " + ex.getMessage(),
                    ex.getCause());
        }
    }

    private LockedMethod resolve(Method method, Class<?> targetClass, DistributedLock annotation) {
        if (Modifier.isStatic(method.getModifiers()) || Modifier.isPrivate(method.getModifiers())) {
            throw new IllegalArgumentException("a Spring proxy cannot intercept a static or private method, so it "
                    + "would run without the lock");
        }
        ResultStyle style = ResultStyle.of(method, targetClass, this.beanFactory.getBeanClassLoader());
        if (annotation.key().isBlank()) {
            throw new IllegalArgumentException("key must not be blank");
        }
        Expression key = this.expressions.parse(method, targetClass, annotation.key());
        String name = annotation.name().isEmpty() ? site(method, targetClass) : annotation.name();
        LockOptions options = LockOptions.defaults().withMode(annotation.mode()).withName(name);
        if (annotation.permits() != 0) {
            options = options.withPermits(annotation.permits());
        }
        else if (annotation.mode().isSemaphore()) {
            throw new IllegalArgumentException("mode = " + annotation.mode() + " needs permits, the semaphore's limit");
        }
        Duration waitTime = duration("waitTime", annotation.waitTime());
        if (waitTime != null) {
            options = options.withWaitTime(waitTime);
        }
        Duration leaseTime = duration("leaseTime", annotation.leaseTime());
        if (leaseTime != null) {
            options = options.withLeaseTime(leaseTime);
        }
        Duration holdAtLeast = duration("holdAtLeast", annotation.holdAtLeast());
        if (holdAtLeast != null && style != ResultStyle.BLOCKING) {
            throw new IllegalArgumentException("holdAtLeast is not supported on methods that return a future or a "
                    + "publisher yet; remove it, or make the method blocking");
        }
        if (holdAtLeast != null && holdAtLeast.compareTo(LockOptions.MAX_LEASE_TIME) > 0) {
            throw new IllegalArgumentException("holdAtLeast must be at most " + LockOptions.MAX_LEASE_TIME.toDays()
                    + " days, but was \"" + annotation.holdAtLeast() + "\"");
        }
        OnNotAcquired onNotAcquired = onNotAcquired(method, annotation, style);
        return new LockedMethod(method, annotation.key(), key, options, holdAtLeast, onNotAcquired,
                annotation.notAcquiredHandler(), style);
    }

    private OnNotAcquired onNotAcquired(Method method, DistributedLock annotation, ResultStyle style) {
        OnNotAcquired choice = annotation.onNotAcquired();
        if (choice == OnNotAcquired.DEFAULT) {
            choice = this.defaultOnNotAcquired.get();
        }
        String handler = annotation.notAcquiredHandler();
        if (choice == OnNotAcquired.CALL_HANDLER) {
            if (handler.isBlank()) {
                throw new IllegalArgumentException("onNotAcquired = CALL_HANDLER needs notAcquiredHandler, the name "
                        + "of a LockNotAcquiredHandler bean");
            }
            if (!this.beanFactory.containsBean(handler)
                    || !this.beanFactory.isTypeMatch(handler, LockNotAcquiredHandler.class)) {
                throw new IllegalArgumentException("notAcquiredHandler '" + handler
                        + "' is not the name of a LockNotAcquiredHandler bean");
            }
        }
        else if (!handler.isEmpty()) {
            throw new IllegalArgumentException("notAcquiredHandler '" + handler + "' is only used with onNotAcquired "
                    + "= CALL_HANDLER, but onNotAcquired is " + annotation.onNotAcquired());
        }
        Class<?> returnType = method.getReturnType();
        if (choice == OnNotAcquired.SKIP && returnType.isPrimitive() && returnType != void.class) {
            if (annotation.onNotAcquired() == OnNotAcquired.DEFAULT) {
                throw new IllegalArgumentException("distlock.on-not-acquired is SKIP, which this annotation uses as "
                        + "it leaves onNotAcquired unset, but SKIP returns null and the method returns " + returnType
                        + "; return a wrapper type or an Optional, or set onNotAcquired = THROW or CALL_HANDLER on "
                        + "this annotation");
            }
            throw new IllegalArgumentException("onNotAcquired is SKIP, which returns null, but the method returns "
                    + returnType + "; return a wrapper type or an Optional, or use THROW or CALL_HANDLER");
        }
        if (choice == OnNotAcquired.SKIP && style == ResultStyle.SUSPEND && !SuspendFunctions.returnsNullable(method)) {
            throw new IllegalArgumentException("onNotAcquired is SKIP" + ((annotation.onNotAcquired()
                    == OnNotAcquired.DEFAULT) ? " (distlock.on-not-acquired)" : "") + ", which returns null, but the "
                    + "suspend function's return type is not nullable; declare it nullable (such as String?), or use "
                    + "THROW or CALL_HANDLER");
        }
        return choice;
    }

    /** {@code OrderService.reserve}: the short name of the bean's own class (not a proxy's) and the method's name. */
    private static String site(Method method, Class<?> targetClass) {
        return ClassUtils.getShortName(ClassUtils.getUserClass(targetClass)) + "." + method.getName();
    }

    /** Parses a duration attribute after resolving placeholders; null when empty. */
    private @Nullable Duration duration(String attribute, String text) {
        if (text.isEmpty()) {
            return null;
        }
        String resolved;
        try {
            resolved = this.beanFactory.resolveEmbeddedValue(text);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(attribute + " \"" + text + "\": " + ex.getMessage(), ex);
        }
        String trimmed = (resolved != null) ? resolved.trim() : "";
        if (trimmed.matches("\\d+") && !trimmed.matches("0+")) {
            throw new IllegalArgumentException(attribute + " \"" + text + "\""
                    + (text.equals(resolved) ? "" : " (resolved to \"" + resolved + "\")") + " has no unit, so it "
                    + "would mean " + trimmed + " milliseconds; write the unit, such as \"" + trimmed + "s\" or \""
                    + trimmed + "ms\"");
        }
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(trimmed);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException(attribute + " \"" + text + "\""
                    + (text.equals(resolved) ? "" : " (resolved to \"" + resolved + "\")")
                    + " is not a duration such as \"500ms\", \"2s\" or \"PT2S\"", ex);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException(attribute + " must not be negative, but was \"" + text + "\"");
        }
        return duration;
    }
}
