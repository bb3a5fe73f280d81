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

    private final @Nullable String rule;

    public LockKeyException(Method method, String expression, String problem, @Nullable Throwable cause) {
        this(method, expression, problem, null, cause);
    }

    /**
     * @param rule the rule of lock keys the evaluated key broke, without the key ({@code a lock key must not contain
     * control characters such as newlines}), or null when the expression itself failed
     */
    public LockKeyException(Method method, String expression, String problem, @Nullable String rule,
            @Nullable Throwable cause) {
        super("@DistributedLock key of " + LockedMethod.describe(method) + " " + problem + " (key = \"" + expression
                + "\"); the method was not invoked", cause);
        this.method = method;
        this.expression = expression;
        this.rule = rule;
    }

    /**
     * The rule of lock keys the evaluated key broke, without the key itself, when the expression gave a key the lock
     * service refuses (blank, too long, braces, control characters): usually bad input to the call, answered with
     * 400 in a web application. Null when the expression could not be evaluated or gave null, which is a defect.
     */
    public @Nullable String rule() {
        return this.rule;
    }

    /**
     * The rule in a lock service's message about a refused key ({@code key must not contain braces (...): "a{b}"}),
     * without the key, or null when the message is not about the key.
     */
    static @Nullable String ruleOf(@Nullable String message) {
        if (message == null || !message.startsWith("key ")) {
            return null;
        }
        String rule = message;
        for (String end : new String[] { ": ", ", but" }) {
            int index = rule.indexOf(end);
            if (index > 0) {
                rule = rule.substring(0, index);
            }
        }
        return "a lock " + rule;
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
