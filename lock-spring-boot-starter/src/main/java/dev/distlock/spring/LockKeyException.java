package dev.distlock.spring;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * A {@link DistributedLock} key expression failed at call time: it could not be evaluated, or gave null, a blank
 * text, or a key the lock service rejects. The method was not invoked and no lock was taken.
 */
public class LockKeyException extends IllegalArgumentException {

    private final transient Method method;

    private final String expression;

    public LockKeyException(Method method, String expression, String problem, @Nullable Throwable cause) {
        super("@DistributedLock key of " + LockedMethod.describe(method) + " " + problem + " (key = \"" + expression
                + "\"); the method was not invoked", cause);
        this.method = method;
        this.expression = expression;
    }

    /** The annotated method. */
    public Method method() {
        return this.method;
    }

    /** The key expression as declared. */
    public String expression() {
        return this.expression;
    }
}
