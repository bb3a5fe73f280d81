package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The annotation where users put it: on an interface method with the implementation proxied, and on a user annotation
 * (with and without attribute overrides), through JDK and CGLIB proxies.
 */
@RedisTest
class ProxyStylesTest {

    @ParameterizedTest(name = "proxy-target-class={0}")
    @ValueSource(booleans = { true, false })
    void anAnnotatedInterfaceMethodLocksTheImplementation(boolean proxyTargetClass, RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(StylesConfiguration.class)
            .withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass)
            .run(context -> {
                Inventory inventory = context.getBean(Inventory.class);
                assertThat(AopUtils.isCglibProxy(inventory)).isEqualTo(proxyTargetClass);
                assertThat(AopUtils.isJdkDynamicProxy(inventory)).isEqualTo(!proxyTargetClass);
                assertThat(inventory.reserve("A1")).isEqualTo("inventory:A1");
                try (LockHandle other = holdElsewhere(context, "inventory:A1")) {
                    assertThatThrownBy(() -> inventory.reserve("A1")).isInstanceOf(LockTimeoutException.class);
                }
            });
    }

    @ParameterizedTest(name = "proxy-target-class={0}")
    @ValueSource(booleans = { true, false })
    void aMetaAnnotationLocksLikeTheAnnotation(boolean proxyTargetClass, RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(StylesConfiguration.class)
            .withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass)
            .run(context -> {
                Inventory inventory = context.getBean(Inventory.class);
                assertThat(inventory.restock("B2")).isEqualTo("sku:B2");
                assertThat(inventory.audit("C3")).isEqualTo("audit:C3");
                try (LockHandle other = holdElsewhere(context, "sku:B2")) {
                    assertThatThrownBy(() -> inventory.restock("B2")).isInstanceOf(LockTimeoutException.class);
                }
                try (LockHandle other = holdElsewhere(context, "audit:C3")) {
                    assertThat(inventory.audit("C3")).as("the meta-annotation's SKIP").isNull();
                }
            });
    }

    @Test
    void theAdvisorAppliesWithoutBootsAopAutoConfiguration(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(StylesConfiguration.class)
            .withPropertyValues("spring.aop.auto=false")
            .run(context -> {
                Inventory inventory = context.getBean(Inventory.class);
                assertThat(AopUtils.isAopProxy(inventory)).isTrue();
                assertThat(inventory.reserve("D4")).isEqualTo("inventory:D4");
            });
    }

    private static LockHandle holdElsewhere(ApplicationContext context, String key) {
        return context.getBean(LockService.class).acquire(key, LockOptions.defaults().withOwner(new Object()));
    }

    /** A fixed meta-annotation: every use locks the first argument's SKU and makes one attempt. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(key = "'sku:' + #p0", waitTime = "0")
    @interface SkuLocked {
    }

    /** A meta-annotation that passes its own key through and skips when the lock is held. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(key = "", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
    @interface Audited {

        @AliasFor(annotation = DistributedLock.class, attribute = "key")
        String value();
    }

    interface Inventory {

        @DistributedLock(key = "'inventory:' + #sku", waitTime = "0")
        String reserve(String sku);

        String restock(String sku);

        String audit(String sku);
    }

    static class DefaultInventory implements Inventory {

        @Override
        public String reserve(String sku) {
            return CurrentLock.required().key();
        }

        @Override
        @SkuLocked
        public String restock(String sku) {
            return CurrentLock.required().key();
        }

        @Override
        @Audited("'audit:' + #sku")
        public String audit(String sku) {
            return CurrentLock.required().key();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StylesConfiguration {

        @Bean
        Inventory inventory() {
            return new DefaultInventory();
        }
    }
}
