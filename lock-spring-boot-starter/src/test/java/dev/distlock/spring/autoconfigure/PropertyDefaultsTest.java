package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.json.JsonParserFactory;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;

import dev.distlock.LockService;
import dev.distlock.integration.DistributedLockRegistry;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.redis.quorum.QuorumLockServiceBuilder;
import dev.distlock.shedlock.DistributedLockProvider;

/**
 * The builders own the defaults: every {@code distlock.*} property of the starter's {@code @ConfigurationProperties}
 * classes (found by scanning, walked by reflection) either defaults to its builder's default, in the bound properties
 * and in the configuration metadata IDEs show, or is listed below as the starter's own. A new property with neither
 * fails here.
 */
class PropertyDefaultsTest {

    /** Each property that maps onto a builder setting, and that setting's default (null: unset, derived). */
    private static final Map<String, @Nullable Object> BUILDER_DEFAULTS = builderDefaults();

    /** Properties with no builder counterpart, and why. */
    private static final Map<String, String> STARTER_ONLY = Map.ofEntries(
            Map.entry("distlock.enabled", "turns the auto-configuration on"),
            Map.entry("distlock.on-not-acquired", "the @DistributedLock aspect's"),
            Map.entry("distlock.aspect.order", "the @DistributedLock advisor's"),
            Map.entry("distlock.verify-access-on-startup", "a startup check of the starter"),
            Map.entry("distlock.replica-acknowledgements.replicas",
                    "one builder call takes replicas and timeout; by topology (-1) unless called"),
            Map.entry("distlock.replica-acknowledgements.timeout",
                    "one builder call takes replicas and timeout; bounds checked by the builder"),
            Map.entry("distlock.quorum.nodes", "the masters the builder is made from"),
            Map.entry("distlock.quorum.username", "the masters' connections"),
            Map.entry("distlock.quorum.password", "the masters' connections"),
            Map.entry("distlock.quorum.ssl.enabled", "the masters' connections"),
            Map.entry("distlock.quorum.ssl.bundle", "the masters' connections"),
            Map.entry("distlock.web.problem-details", "the starter's web error handler"),
            Map.entry("distlock.web.retry-after", "the starter's web error handler"),
            Map.entry("distlock.metrics.max-names", "the starter's meters"),
            Map.entry("distlock.metrics.key-names", "the starter's meters"),
            Map.entry("distlock.shedlock.enabled", "turns the provider's auto-configuration on"),
            Map.entry("distlock.lock-registry.enabled", "turns the registry's auto-configuration on"));

    private static Map<String, @Nullable Object> builderDefaults() {
        Map<String, @Nullable Object> defaults = new HashMap<>();
        defaults.put("distlock.key-prefix", RedisLockServiceBuilder.DEFAULT_KEY_PREFIX);
        defaults.put("distlock.default-wait-time", RedisLockServiceBuilder.DEFAULT_WAIT_TIME);
        defaults.put("distlock.watchdog.lease", RedisLockServiceBuilder.DEFAULT_WATCHDOG_LEASE);
        defaults.put("distlock.watchdog.renewal-interval", null);
        defaults.put("distlock.token-retention", null);
        defaults.put("distlock.wait-strategy", null);
        defaults.put("distlock.max-key-length", LockService.MAX_KEY_LENGTH);
        defaults.put("distlock.log-keys", RedisLockServiceBuilder.DEFAULT_LOG_KEYS);
        defaults.put("distlock.sharding-proxy", RedisLockServiceBuilder.DEFAULT_SHARDING_PROXY);
        defaults.put("distlock.hand-off.limit", RedisLockServiceBuilder.DEFAULT_MAX_HAND_OFFS);
        defaults.put("distlock.hand-off.max-time", RedisLockServiceBuilder.DEFAULT_MAX_HAND_OFF_TIME);
        defaults.put("distlock.safety.restart-grace", RedisLockServiceBuilder.DEFAULT_RESTART_GRACE);
        defaults.put("distlock.redis.call-timeout", RedisLockServiceBuilder.DEFAULT_CALL_TIMEOUT);
        defaults.put("distlock.safety.eviction-policy-check", RedisLockServiceBuilder.DEFAULT_EVICTION_POLICY_CHECK);
        defaults.put("distlock.quorum.node-timeout", QuorumLockServiceBuilder.DEFAULT_NODE_TIMEOUT);
        defaults.put("distlock.shedlock.key-prefix", DistributedLockProvider.DEFAULT_KEY_PREFIX);
        defaults.put("distlock.lock-registry.key-prefix", DistributedLockRegistry.DEFAULT_KEY_PREFIX);
        defaults.put("distlock.lock-registry.cache-capacity", DistributedLockRegistry.DEFAULT_CACHE_CAPACITY);
        return defaults;
    }

    @Test
    void everyPropertyMapsOntoABuilderSettingOrIsListedAsTheStartersOwn() throws Exception {
        Map<String, PropertyDefault> properties = properties();
        assertThat(properties).as("the scan found the properties classes").hasSizeGreaterThan(30);
        Set<String> accounted = new TreeSet<>(BUILDER_DEFAULTS.keySet());
        accounted.addAll(STARTER_ONLY.keySet());
        assertThat(new TreeSet<>(properties.keySet())).as("properties; a new one maps onto a builder setting "
                + "(BUILDER_DEFAULTS) or is listed in STARTER_ONLY").isEqualTo(accounted);
    }

    @Test
    void everyPropertyDefaultsToItsBuildersDefault() throws Exception {
        Map<String, PropertyDefault> properties = properties();
        BUILDER_DEFAULTS.forEach((name, builderDefault) -> assertThat(properties.get(name).value())
            .as(name).isEqualTo(builderDefault));
    }

    @Test
    void theConfigurationMetadataShowsTheBuildersDefaults() throws Exception {
        Map<String, PropertyDefault> properties = properties();
        Map<String, @Nullable Object> shown = metadataDefaults();
        BUILDER_DEFAULTS.forEach((name, builderDefault) -> {
            Object value = shown.get(name);
            Object converted = (value != null) ? ApplicationConversionService.getSharedInstance()
                .convert(String.valueOf(value), properties.get(name).type()) : null;
            assertThat(converted).as("metadata default of " + name + " (" + value + ")").isEqualTo(builderDefault);
        });
    }

    /** Every leaf property of the @ConfigurationProperties classes in this package, with its default. */
    private static Map<String, PropertyDefault> properties() throws Exception {
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(ConfigurationProperties.class));
        Map<String, PropertyDefault> properties = new TreeMap<>();
        for (BeanDefinition candidate : scanner.findCandidateComponents(
                DistributedLockProperties.class.getPackageName())) {
            Class<?> type = ClassUtils.forName(candidate.getBeanClassName(), null);
            if (type.getEnclosingClass() != null) {
                continue; // a test's own, such as DistributedLockPropertiesCheckTest's extra module
            }
            String prefix = type.getAnnotation(ConfigurationProperties.class).value();
            collect(prefix, BeanUtils.instantiateClass(type), properties);
        }
        return properties;
    }

    private static void collect(String prefix, Object bean, Map<String, PropertyDefault> properties) {
        BeanWrapper wrapper = PropertyAccessorFactory.forBeanPropertyAccess(bean);
        for (PropertyDescriptor descriptor : wrapper.getPropertyDescriptors()) {
            if (descriptor.getReadMethod() == null || "class".equals(descriptor.getName())) {
                continue;
            }
            String name = prefix + "." + descriptor.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
            Class<?> type = descriptor.getPropertyType();
            Object value = wrapper.getPropertyValue(descriptor.getName());
            if (BeanUtils.isSimpleValueType(type) || type.getName().startsWith("java.")) {
                properties.put(name, new PropertyDefault(type, value));
            }
            else {
                collect(name, value, properties);
            }
        }
    }

    /** The default of each property in the metadata the configuration processor wrote (with the additional one). */
    private static Map<String, @Nullable Object> metadataDefaults() throws IOException {
        try (InputStream in = PropertyDefaultsTest.class
            .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            Map<String, Object> json = JsonParserFactory.getJsonParser()
                .parseMap(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            Map<String, @Nullable Object> defaults = new HashMap<>();
            for (Object item : (List<?>) json.get("properties")) {
                Map<?, ?> property = (Map<?, ?>) item;
                defaults.put((String) property.get("name"), property.get("defaultValue"));
            }
            return defaults;
        }
    }

    private record PropertyDefault(Class<?> type, @Nullable Object value) {
    }
}
