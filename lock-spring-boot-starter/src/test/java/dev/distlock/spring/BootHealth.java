package dev.distlock.spring;

import java.lang.reflect.Method;
import java.util.Map;

import org.springframework.context.ApplicationContext;
import org.springframework.util.ReflectionUtils;

/**
 * The {@code distlock} health contributor's answer, read the same way on Spring Boot 4 (whose health API is
 * {@code org.springframework.boot.health.contributor}) and 3.5 ({@code org.springframework.boot.actuate.health}): the
 * starter's tests run on both.
 */
public record BootHealth(String status, Map<String, Object> details) {

    /** Both lines' health auto-configurations: each switches itself on only on its own line. */
    public static final String[] AUTO_CONFIGURATIONS = {
            "dev.distlock.spring.autoconfigure.DistributedLockHealthAutoConfiguration",
            "dev.distlock.spring.autoconfigure.DistributedLockBoot3HealthAutoConfiguration" };

    /** Asks the context's {@code distlockHealthIndicator} for its health now. */
    @SuppressWarnings("unchecked")
    public static BootHealth of(ApplicationContext context) {
        Object health = invoke(context.getBean("distlockHealthIndicator"), "health");
        Object status = invoke(health, "getStatus");
        return new BootHealth((String) invoke(status, "getCode"), (Map<String, Object>) invoke(health, "getDetails"));
    }

    /** The health auto-configuration classes, for {@code AutoConfigurations.of}. */
    public static Class<?>[] autoConfigurations() {
        Class<?>[] classes = new Class<?>[AUTO_CONFIGURATIONS.length];
        for (int i = 0; i < classes.length; i++) {
            try {
                classes[i] = Class.forName(AUTO_CONFIGURATIONS[i]);
            }
            catch (ClassNotFoundException ex) {
                throw new IllegalStateException(ex);
            }
        }
        return classes;
    }

    private static Object invoke(Object target, String name) {
        Method method = ReflectionUtils.findMethod(target.getClass(), name);
        if (method == null) {
            throw new IllegalStateException("No " + name + "() on " + target.getClass().getName());
        }
        ReflectionUtils.makeAccessible(method);
        return ReflectionUtils.invokeMethod(method, target);
    }
}
