package dev.distlock.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;

import dev.distlock.AsyncLockService;
import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.spring.LockKeyExpressions.EvaluatedKeys;

/**
 * Runs a {@link DistributedLock} method under its lock: evaluates the key, acquires, invokes (inside the handle's
 * scope when it is a {@link ScopedLockHandle}), releases (or keeps the lock for the rest of
 * {@link DistributedLock#holdAtLeast()}). A release failure is thrown after the method's own
 * outcome: instead of its result, or added as suppressed to what it threw.
 */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Log logger = LogFactory.getLog(DistributedLockInterceptor.class);

    private final LockedMethods lockedMethods;

    private final Supplier<LockService> lockService;

    DistributedLockInterceptor(LockedMethods lockedMethods, Supplier<LockService> lockService) {
        this.lockedMethods = lockedMethods;
        this.lockService = lockService;
    }

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        LockedMethod locked = this.lockedMethods.find(invocation.getMethod(), targetClass);
        if (locked == null) {
            return invocation.proceed();
        }
        EvaluatedKeys keys = this.lockedMethods.expressions()
            .evaluate(locked, invocation.getArguments(), target, targetClass);
        if (locked.style() != ResultStyle.BLOCKING) {
            return invokeAsync(locked, keys, invocation);
        }
        LockHandle lock;
        try {
            lock = keys.several() ? this.lockService.get().acquireAll(keys.keys(), locked.options())
                    : this.lockService.get().acquire(keys.keys().get(0), locked.options());
        }
        catch (LockTimeoutException ex) {
            return notAcquired(locked, invocation, keys.toString(), ex);
        }
        catch (IllegalArgumentException ex) {
            throw badKey(locked, keys, ex);
        }
        return proceedHolding(lock, locked, invocation);
    }

    /** A method returning a future or a publisher: locked until its result completes. */
    private Object invokeAsync(LockedMethod locked, EvaluatedKeys keys, MethodInvocation invocation) {
        AsyncLockService locks = this.lockService.get().async();
        AsyncLockedCall.NotAcquired notAcquired = timeout -> notAcquired(locked, invocation, keys.toString(), timeout);
        try {
            return (locked.style() == ResultStyle.FUTURE)
                    ? AsyncLockedCall.invoke(locks, keys, locked, invocation, notAcquired)
                    : ReactiveLockedCall.invoke(locks, keys, locked, invocation, notAcquired,
                            ex -> badKey(locked, keys, ex));
        }
        catch (IllegalArgumentException ex) {
            throw badKey(locked, keys, ex);
        }
    }

    private static LockKeyException badKey(LockedMethod locked, EvaluatedKeys keys, IllegalArgumentException ex) {
        return new LockKeyException(locked.method(), locked.keyText(), "evaluated to "
                + KeyText.quote(keys.toString()) + ", which is not a valid lock key: " + ex.getMessage(),
                LockKeyException.ruleOf(ex.getMessage()), ex);
    }

    private @Nullable Object proceedHolding(LockHandle lock, LockedMethod locked, MethodInvocation invocation)
            throws Throwable {
        long acquiredNanos = System.nanoTime();
        CurrentLock.push(lock);
        Object result;
        try (ScopedLockHandle.Scope scope = ScopedLockHandle.openScope(lock)) {
            result = invocation.proceed();
        }
        catch (Throwable ex) {
            CurrentLock.pop(lock);
            try {
                release(lock, locked, acquiredNanos);
            }
            catch (RuntimeException releaseFailure) {
                ex.addSuppressed(releaseFailure);
            }
            throw ex;
        }
        CurrentLock.pop(lock);
        release(lock, locked, acquiredNanos);
        return result;
    }

    private static void release(LockHandle lock, LockedMethod locked, long acquiredNanos) {
        Duration holdAtLeast = locked.holdAtLeast();
        if (holdAtLeast != null) {
            long remainingNanos = holdAtLeast.toNanos() - (System.nanoTime() - acquiredNanos);
            if (remainingNanos > 0) {
                lock.releaseAfter(Duration.ofNanos(remainingNanos)); // the service rounds it up to Redis's whole ms
                return;
            }
        }
        lock.release();
    }

    private @Nullable Object notAcquired(LockedMethod locked, MethodInvocation invocation, String key,
            LockTimeoutException timeout) throws Throwable {
        switch (locked.onNotAcquired()) {
            case SKIP -> {
                if (logger.isDebugEnabled()) {
                    logger.debug("Skipped " + LockedMethod.describe(locked.method()) + ": " + timeout.getMessage());
                }
                return locked.skippedResult();
            }
            case CALL_HANDLER -> {
                LockNotAcquiredHandler handler = this.lockedMethods.beanFactory()
                    .getBean(locked.handlerName(), LockNotAcquiredHandler.class);
                return handler.handle(new LockNotAcquiredEvent(locked.method(),
                        Collections.unmodifiableList(new ArrayList<>(Arrays.asList(invocation.getArguments()))), key,
                        timeout));
            }
            default -> throw timeout;
        }
    }
}
