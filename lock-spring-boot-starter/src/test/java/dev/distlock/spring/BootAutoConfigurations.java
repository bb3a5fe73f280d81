package dev.distlock.spring;

import org.springframework.context.annotation.ImportSelector;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * The Spring Boot auto-configurations the tests start, by name, for the Boot line they run on: this test source runs
 * on Boot 4.1 (the starter's own build), 4.0 (lock-spring-boot-starter-boot40) and 3.5
 * (lock-spring-boot-starter-boot35), and Boot 4 moved these classes to other packages. Each is Boot 4's class where it
 * exists, else Boot 3.5's.
 */
public final class BootAutoConfigurations {

    public static final Class<?> DATA_REDIS = either(
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");

    public static final Class<?> METRICS = either(
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration");

    public static final Class<?> TRANSACTION = either(
            "org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration");

    public static final Class<?> TRANSACTION_MANAGER_CUSTOMIZATION = either(
            "org.springframework.boot.transaction.autoconfigure.TransactionManagerCustomizationAutoConfiguration",
            "org.springframework.boot.autoconfigure.transaction.TransactionManagerCustomizationAutoConfiguration");

    public static final Class<?> DATA_SOURCE = either(
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");

    public static final Class<?> DATA_SOURCE_TRANSACTION_MANAGER = either(
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration");

    public static final Class<?> JDBC_TEMPLATE = either(
            "org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
            "org.springframework.boot.autoconfigure.jdbc.JdbcTemplateAutoConfiguration");

    /** Whether the tests run on Spring Boot 3.5 (Spring Framework 6.2). */
    public static final boolean BOOT_3 = !ClassUtils.isPresent(
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration", null);

    private BootAutoConfigurations() {
    }

    /** {@code @Import(DataRedis.class)}: Spring Boot's Redis auto-configuration, where an annotation needs a class. */
    public static final class DataRedis implements ImportSelector {

        @Override
        public String[] selectImports(AnnotationMetadata metadata) {
            return new String[] { DATA_REDIS.getName() };
        }
    }

    private static Class<?> either(String boot4, String boot3) {
        ClassLoader classLoader = BootAutoConfigurations.class.getClassLoader();
        return ClassUtils.resolveClassName(ClassUtils.isPresent(boot4, classLoader) ? boot4 : boot3, classLoader);
    }
}
