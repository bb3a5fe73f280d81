package dev.distlock.spring.aot;

import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import dev.distlock.spring.DistributedLock;

/**
 * Hints for the beans that have {@link DistributedLock} methods, found at build time: the advisor looks for the
 * annotation among the declared methods of the bean's class, its superclasses and interfaces, and the proxy invokes
 * the locked method by reflection, so those types get their declared methods registered for invocation. The key
 * expression reads the arguments by reflection ({@code #order.id}), so the application's parameter types get their
 * public methods registered too; JDK types need none.
 */
public final class DistributedLockBeanAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
        if (!AnnotationUtils.isCandidateClass(beanClass, DistributedLock.class) || !hasLockedMethods(beanClass)) {
            return null;
        }
        return (generationContext, code) -> registerHints(generationContext.getRuntimeHints(), beanClass);
    }

    /** Registers what a bean of {@code beanClass} needs for its locked methods. */
    static void registerHints(RuntimeHints hints, Class<?> beanClass) {
        for (Class<?> type : hierarchy(beanClass)) {
            hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS,
                    MemberCategory.INVOKE_DECLARED_METHODS);
            for (Method method : type.getDeclaredMethods()) {
                if (AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)) {
                    for (Class<?> parameter : method.getParameterTypes()) {
                        registerArgumentType(hints, parameter);
                    }
                }
            }
        }
    }

    private static void registerArgumentType(RuntimeHints hints, Class<?> type) {
        Class<?> element = type.isArray() ? type.getComponentType() : type;
        if (element.isPrimitive() || element.getName().startsWith("java.")) {
            return;
        }
        hints.reflection().registerType(element, MemberCategory.INVOKE_PUBLIC_METHODS);
    }

    private static boolean hasLockedMethods(Class<?> beanClass) {
        for (Class<?> type : hierarchy(beanClass)) {
            for (Method method : ReflectionUtils.getDeclaredMethods(type)) {
                if (AnnotatedElementUtils.hasAnnotation(method, DistributedLock.class)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The class, its superclasses and every interface, without JDK types. */
    private static Set<Class<?>> hierarchy(Class<?> beanClass) {
        Set<Class<?>> types = new LinkedHashSet<>();
        for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
            types.add(type);
        }
        types.addAll(ClassUtils.getAllInterfacesForClassAsSet(beanClass));
        types.removeIf(type -> type.getName().startsWith("java."));
        return types;
    }
}
