package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.KeyText;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.CachedExpressionEvaluator;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.expression.BeanResolver;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.ReflectionUtils;

/**
 * Parses {@link DistributedLock#key()} expressions once per method and evaluates them per call, as Spring's cache
 * abstraction does for its keys: parameters by name ({@code #sku}) or index ({@code #p0}, {@code #a0}), beans with
 * {@code @name}, and a {@link LockKeyRoot} as {@code #root}. Thread-safe.
 */
final class LockKeyExpressions extends CachedExpressionEvaluator {

    private final Map<ExpressionKey, Expression> cache = new ConcurrentHashMap<>(64);

    private final BeanResolver beanResolver;

    LockKeyExpressions(BeanFactory beanFactory) {
        this.beanResolver = new BeanFactoryResolver(beanFactory);
    }

    /**
     * Parses the expression and checks that every {@code #variable} it names exists for the method.
     *
     * @throws IllegalArgumentException naming the problem, for a syntax error or an unknown variable
     */
    Expression parse(Method method, Class<?> targetClass, String expression) {
        Expression parsed;
        try {
            parsed = getExpression(this.cache, new AnnotatedElementKey(method, targetClass), expression);
        }
        catch (ParseException ex) {
            throw new IllegalArgumentException("key \"" + expression + "\" is not valid SpEL: " + ex.getMessage(), ex);
        }
        if (parsed instanceof SpelExpression spel) {
            checkVariables(spel.getAST(), method, expression);
        }
        return parsed;
    }

    private void checkVariables(SpelNode node, Method method, String expression) {
        if (node instanceof VariableReference variable) {
            String name = variable.toStringAST().substring(1);
            if (!knownVariables(method).contains(name)) {
                if (method.getParameterCount() > 0 && getParameterNameDiscoverer().getParameterNames(method) == null
                        && !name.matches("[pa]\\d+")) {
                    throw new IllegalArgumentException("key \"" + expression + "\" refers to #" + name + ", but the "
                            + "names of the method's parameters are not available: its class was compiled without "
                            + "-parameters. Compile with -parameters (Spring Boot's Maven parent and Gradle plugin "
                            + "do; with maven-compiler-plugin alone set <parameters>true</parameters>, in Gradle add "
                            + "'-parameters' to options.compilerArgs), or refer to the arguments by position: "
                            + positionalVariables(method));
                }
                throw new IllegalArgumentException("key \"" + expression + "\" refers to #" + name
                        + ", which is not a parameter of the method; use one of " + knownVariables(method));
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            checkVariables(node.getChild(i), method, expression);
        }
    }

    private static List<String> positionalVariables(Method method) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            names.add("#p" + i);
        }
        return names;
    }

    private Set<String> knownVariables(Method method) {
        Set<String> names = new HashSet<>();
        names.add("root");
        names.add("this");
        String[] parameterNames = getParameterNameDiscoverer().getParameterNames(method);
        if (parameterNames != null) {
            names.addAll(Set.of(parameterNames));
        }
        for (int i = 0; i < method.getParameterCount(); i++) {
            names.add("p" + i);
            names.add("a" + i);
        }
        return names;
    }

    /**
     * Evaluates the method's key for one call: one key, or the keys of a collection or array result.
     *
     * @throws LockKeyException when evaluation fails or gives null, a blank text, or an object that has no
     * {@code toString()} of its own (for a collection or array: any element that does, or no element at all)
     */
    EvaluatedKeys evaluate(LockedMethod locked, @Nullable Object[] arguments, @Nullable Object target,
            Class<?> targetClass) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new LockKeyRoot(locked.method(), arguments, target, targetClass), locked.method(), arguments,
                getParameterNameDiscoverer());
        context.setBeanResolver(this.beanResolver);
        Object value;
        try {
            value = locked.key().getValue(context);
        }
        catch (RuntimeException ex) {
            throw new LockKeyException(locked.method(), locked.keyText(),
                    "could not be evaluated: " + ex.getMessage() + quotingHint(locked.keyText()), ex);
        }
        if (value instanceof Collection<?> || value instanceof Object[]) {
            List<?> elements = (value instanceof Object[] array) ? Arrays.asList(array)
                    : new ArrayList<>((Collection<?>) value); // keeps null elements, to report them
            if (elements.isEmpty()) {
                throw new LockKeyException(locked.method(), locked.keyText(), "evaluated to no keys at all", null);
            }
            List<String> keys = new ArrayList<>(elements.size());
            for (int i = 0; i < elements.size(); i++) {
                keys.add(keyText(locked, elements.get(i), "element " + i + " "));
            }
            return new EvaluatedKeys(keys, true);
        }
        return new EvaluatedKeys(List.of(keyText(locked, value, "")), false);
    }

    private static String keyText(LockedMethod locked, @Nullable Object value, String which) {
        if (value == null) {
            throw new LockKeyException(locked.method(), locked.keyText(), which + "evaluated to null", null);
        }
        if (!hasOwnToString(value)) {
            throw new LockKeyException(locked.method(), locked.keyText(), which + "evaluated to a "
                    + value.getClass().getName() + ", which has no toString() of its own; name a property instead, "
                    + "such as #order.id", null);
        }
        String key = value.toString();
        if (key == null || key.isBlank()) {
            throw new LockKeyException(locked.method(), locked.keyText(),
                    which + "evaluated to a blank text " + KeyText.quote(key), "a lock key must not be blank", null);
        }
        return key;
    }

    /** The keys one call locks; {@code several} when the key expression gave a collection or array. */
    record EvaluatedKeys(List<String> keys, boolean several) {

        @Override
        public String toString() {
            return this.several ? this.keys.toString() : this.keys.get(0);
        }
    }

    private static boolean hasOwnToString(Object value) {
        Method toString = ReflectionUtils.findMethod(value.getClass(), "toString");
        return toString != null && toString.getDeclaringClass() != Object.class;
    }

    private static String quotingHint(String expression) {
        boolean plainText = expression.indexOf('\'') < 0 && expression.indexOf('#') < 0
                && expression.indexOf('@') < 0;
        return plainText ? "; a literal key must be quoted, e.g. key = \"'" + expression + "'\"" : "";
    }
}
