package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.aop.Advice;
import org.springframework.aop.ClassFilter;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

import dev.distlock.LockService;

/**
 * The Spring AOP advisor that applies {@link DistributedLock}: any auto-proxy creator (Spring Boot registers one)
 * proxies the beans with annotated methods, JDK or CGLIB proxies alike.
 *
 * <p>The pointcut inspects each bean class once, when the auto-proxy creator first looks at it during bean creation:
 * it resolves every annotated method (parsing keys and durations) and fails the bean's creation with a message naming
 * the method when a declaration is invalid, and it logs a WARN when the class calls its own annotated methods through
 * {@code this}.
 *
 * <p>Give it an order above the transaction advisor's ({@link org.springframework.core.Ordered#LOWEST_PRECEDENCE} by
 * default) so that the lock is taken before a transaction begins and released after it ends.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Pointcut pointcut;

    private final transient Advice advice;

    /**
     * Creates the advisor. Neither supplier is called before the first annotated class is inspected or the first
     * annotated call, so the advisor may be created early, as auto-proxy creators do.
     *
     * @param beanFactory resolves {@code @bean} references in keys, {@code ${...}} placeholders in durations and
     * the {@link LockNotAcquiredHandler} beans
     * @param lockService the service that takes the locks
     * @param defaultOnNotAcquired what {@link OnNotAcquired#DEFAULT} means: {@link OnNotAcquired#THROW} or
     * {@link OnNotAcquired#SKIP}
     */
    public DistributedLockAdvisor(ConfigurableBeanFactory beanFactory, Supplier<LockService> lockService,
            Supplier<OnNotAcquired> defaultOnNotAcquired) {
        LockedMethods lockedMethods = new LockedMethods(beanFactory, () -> checkDefault(defaultOnNotAcquired.get()));
        this.pointcut = new LockedMethodPointcut(lockedMethods);
        this.advice = new DistributedLockInterceptor(lockedMethods, lockService);
    }

    private static OnNotAcquired checkDefault(OnNotAcquired value) {
        if (value != OnNotAcquired.THROW && value != OnNotAcquired.SKIP) {
            throw new IllegalArgumentException("The default OnNotAcquired must be THROW or SKIP, but was " + value);
        }
        return value;
    }

    @Override
    public Pointcut getPointcut() {
        return this.pointcut;
    }

    @Override
    public Advice getAdvice() {
        return this.advice;
    }

    /** Matches the methods {@link LockedMethods} resolves, in the classes it reports as having any. */
    private static final class LockedMethodPointcut extends StaticMethodMatcherPointcut {

        private final LockedMethods lockedMethods;

        LockedMethodPointcut(LockedMethods lockedMethods) {
            this.lockedMethods = lockedMethods;
            setClassFilter(new LockedClassFilter(lockedMethods));
        }

        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return this.lockedMethods.find(method, targetClass) != null;
        }
    }

    private record LockedClassFilter(LockedMethods lockedMethods) implements ClassFilter {

        @Override
        public boolean matches(Class<?> type) {
            return this.lockedMethods.hasLockedMethods(type);
        }
    }
}
