package dev.distlock.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.GeneratedClasses;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.Resource;
import org.springframework.core.io.UrlResource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.PropertiesLoaderUtils;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.StringUtils;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockKeyRoot;
import dev.distlock.spring.autoconfigure.DistributedLockProperties;
import dev.distlock.spring.autoconfigure.DistributedLockSafetyProperties;
import dev.distlock.spring.autoconfigure.QuorumProperties;

/**
 * The hints a native image needs, checked as AOT processing gathers them: every registrar of every
 * {@code META-INF/spring/aot.factories} on the class path (Spring's own too) applied to one {@link RuntimeHints}.
 */
class DistributedLockRuntimeHintsTest {

    private final RuntimeHints hints = allRegisteredHints();

    private static RuntimeHints allRegisteredHints() {
        RuntimeHints hints = new RuntimeHints();
        ClassLoader classLoader = DistributedLockRuntimeHintsTest.class.getClassLoader();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories", classLoader)
            .load(RuntimeHintsRegistrar.class)
            .forEach(registrar -> registrar.registerHints(hints, classLoader));
        return hints;
    }

    @Test
    void everyLuaScriptOfLockCoreIsAResource() throws IOException {
        Resource[] scripts = new PathMatchingResourcePatternResolver()
            .getResources("classpath*:" + DistributedLockRuntimeHints.SCRIPTS);
        assertThat(scripts).hasSizeGreaterThan(10);
        for (Resource script : scripts) {
            String path = "dev/distlock/redis/script/" + script.getFilename();
            assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(this.hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/spring-configuration-metadata.json"))
            .accepts(this.hints);
    }

    @Test
    void thePropertiesClassesAndTheirNestedTypesCanBeBound() throws Exception {
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DistributedLockProperties.class, "setEnabled"))
            .accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(DistributedLockProperties.Watchdog.class.getMethod("setLease", Duration.class)))
            .accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onConstructorInvocation(DistributedLockSafetyProperties.class.getConstructor())).accepts(this.hints);
        assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(QuorumProperties.class.getConstructor()))
            .accepts(this.hints);
    }

    @Test
    void keyExpressionsCanReadTheRootObjectAndTheAnnotation() {
        for (String getter : List.of("getMethod", "getMethodName", "getArgs", "getTarget", "getTargetClass")) {
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LockKeyRoot.class, getter)).as(getter)
                .accepts(this.hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DistributedLock.class, "key"))
            .accepts(this.hints);
    }

    @Test
    void everyClassTheStarterListsInSpringFactoriesCanBeInstantiated() throws Exception {
        Properties factories = PropertiesLoaderUtils.loadProperties(new UrlResource(starterResource("META-INF/spring.factories")));
        int checked = 0;
        for (String implementations : factories.stringPropertyNames().stream().map(factories::getProperty).toList()) {
            for (String name : StringUtils.commaDelimitedListToStringArray(implementations)) {
                Class<?> type = Class.forName(name.trim());
                assertThat(RuntimeHintsPredicates.reflection()
                    .onConstructorInvocation(type.getDeclaredConstructors()[0])).as(name).accepts(this.hints);
                checked++;
            }
        }
        assertThat(checked).isPositive();
    }

    @Test
    void aBeanWithLockedMethodsCanBeFoundAndInvokedAndItsArgumentsRead() throws Exception {
        RuntimeHints beanHints = contributedHints(Orders.class);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(Orders.class.getDeclaredMethod("reserve", Order.class, int.class))).accepts(beanHints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "id")).accepts(beanHints);
        assertThat(RuntimeHintsPredicates.reflection().onType(String.class)).rejects(beanHints);
        assertThat(new DistributedLockBeanAotProcessor().processAheadOfTime(registered(Unlocked.class))).isNull();
    }

    private static RuntimeHints contributedHints(Class<?> beanClass) {
        BeanRegistrationAotContribution contribution = new DistributedLockBeanAotProcessor()
            .processAheadOfTime(registered(beanClass));
        assertThat(contribution).isNotNull();
        RuntimeHints hints = new RuntimeHints();
        contribution.applyTo(new HintsOnly(hints), null);
        return hints;
    }

    private static RegisteredBean registered(Class<?> beanClass) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
        return RegisteredBean.of(beanFactory, "bean");
    }

    /** The starter's own file, not another module's of the same name. */
    /** A resource of the starter itself: its classes folder, or its jar when another module's build tests it. */
    private static URL starterResource(String name) throws IOException {
        URL classes = DistributedLockRuntimeHints.class.getProtectionDomain().getCodeSource().getLocation();
        return classes.getPath().endsWith(".jar") ? new URL("jar:" + classes + "!/" + name) : new URL(classes, name);
    }

    public record Order(String id) {
    }

    public static class Orders {

        @DistributedLock(key = "'order:' + #order.id")
        public void reserve(Order order, int quantity) {
        }
    }

    static class Unlocked {

        public void reserve(Order order) {
        }
    }

    /** A generation context that only gathers hints, which is all the contribution touches. */
    private record HintsOnly(RuntimeHints hints) implements GenerationContext {

        @Override
        public GeneratedClasses getGeneratedClasses() {
            throw new UnsupportedOperationException();
        }

        @Override
        public GeneratedFiles getGeneratedFiles() {
            throw new UnsupportedOperationException();
        }

        @Override
        public RuntimeHints getRuntimeHints() {
            return this.hints;
        }

        @Override
        public GenerationContext withName(String name) {
            throw new UnsupportedOperationException();
        }
    }
}
