package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ApplicationContext;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Stops startup, before Redis is contacted, when a property under {@code distlock.*} set where a user writes
 * configuration (a configuration file, a {@code --distlock.x} argument, a test's properties) is not one distlock (or a
 * module adding {@code distlock.*} properties) declares, naming the nearest valid one when it is a likely typo, or when
 * a duration property is a bare number, which Spring reads as milliseconds ({@code distlock.watchdog.lease: 30} would
 * be 30 ms). A bare 0 is accepted. The valid names come from {@link DistributedLockPropertyNames}.
 *
 * <p>Environment variables and system properties only log: Kubernetes names variables after Services
 * ({@code DISTLOCK_REDIS_SERVICE_HOST} for a Service {@code distlock-redis}), and build tools pass their own
 * {@code -D} properties. Such a name is a WARN when it is a likely typo of a valid one, or a duration without a unit,
 * and DEBUG otherwise. {@code distlock.test.*} (lock-test-support's settings) is never judged.
 * {@value #MODE_PROPERTY} is {@code fail} (default), {@code warn} (log only) or {@code off}. A watchdog lease under a
 * second is logged as a WARN with the value as read.
 */
final class DistributedLockPropertiesCheck implements SmartInitializingSingleton {

    /** fail, warn or off. */
    static final String MODE_PROPERTY = "distlock.properties-check";

    private static final ConfigurationPropertyName ROOT =
            ConfigurationPropertyName.of(DistributedLockProperties.PREFIX);

    private static final String TEST_SUPPORT_PREFIX = DistributedLockProperties.PREFIX + ".test.";

    private static final Log logger = LogFactory.getLog(DistributedLockPropertiesCheck.class);

    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

    private final ApplicationContext context;

    DistributedLockPropertiesCheck(ApplicationContext context) {
        this.context = context;
    }

    /**
     * @throws InvalidDistributedLockPropertiesException listing every unknown or unit-less property set in
     * configuration, with where it was set
     */
    @Override
    public void afterSingletonsInstantiated() {
        String mode = this.context.getEnvironment().getProperty(MODE_PROPERTY, "fail").trim().toLowerCase(Locale.ROOT);
        if (!mode.equals("off")) {
            check(!mode.equals("warn"));
        }
        DistributedLockProperties properties = this.context.getBeanProvider(DistributedLockProperties.class)
            .getIfAvailable();
        if (properties != null) {
            warnAboutShortLease(properties.getWatchdog());
        }
    }

    private void check(boolean failOnConfiguration) {
        DistributedLockPropertyNames names = DistributedLockPropertyNames.of(this.context);
        List<String> problems = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.context.getEnvironment())) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            boolean configuration = isConfiguration(source.getUnderlyingSource());
            boolean environment = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
            iterable.filter(ROOT::isAncestorOf).stream().forEach(name -> {
                String key = environment ? names.fromEnvironment(withoutIndex(name)) : withoutIndex(name);
                if (key.startsWith(TEST_SUPPORT_PREFIX)) {
                    return;
                }
                ConfigurationProperty property = iterable.getConfigurationProperty(name);
                String origin = (property != null && property.getOrigin() != null)
                        ? " (set in " + property.getOrigin() + ")" : "";
                String problem = null;
                boolean likelyMeant = configuration;
                if (!names.isKnown(key)) {
                    String nearest = names.nearest(key);
                    likelyMeant |= nearest != null;
                    problem = key + origin + " is not a distlock property"
                            + ((nearest != null) ? "; did you mean " + nearest + "?" : "");
                }
                else if (names.isDuration(key) && property != null && isBareNumber(property.getValue())) {
                    likelyMeant = true;
                    problem = key + origin + " is " + property.getValue() + " with no unit, which would mean "
                            + property.getValue() + " milliseconds; write the unit, such as " + property.getValue()
                            + "s or " + property.getValue() + "ms";
                }
                if (problem == null) {
                    return;
                }
                if (configuration && failOnConfiguration) {
                    problems.add(problem);
                }
                else if (likelyMeant) {
                    logger.warn(problem);
                }
                else if (logger.isDebugEnabled()) {
                    logger.debug(problem + " (ignored: not set in a configuration file or argument)");
                }
            });
        }
        if (!problems.isEmpty()) {
            throw new InvalidDistributedLockPropertiesException(problems);
        }
    }

    /**
     * Whether {@code source} is one a user writes distlock configuration in: anything but the process's environment
     * variables and the JVM's system properties.
     */
    private static boolean isConfiguration(Object source) {
        if (source instanceof SystemEnvironmentPropertySource) {
            return false;
        }
        return !(source instanceof PropertySource<?> propertySource
                && StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME.equals(propertySource.getName()));
    }

    /** A lease under a second is legal but rarely meant: the watchdog renews several times a second per lock. */
    private static void warnAboutShortLease(DistributedLockProperties.Watchdog watchdog) {
        Duration lease = watchdog.getLease();
        if (lease != null && lease.compareTo(SHORT_LEASE) < 0) {
            Duration interval = (watchdog.getRenewalInterval() != null) ? watchdog.getRenewalInterval()
                    : lease.dividedBy(3);
            logger.warn("distlock.watchdog.lease is " + HumanDurations.format(lease) + ": the watchdog renews every "
                    + HumanDurations.format(interval) + ", and a pause longer than the lease loses the lock. Leases "
                    + "are usually seconds (the default is 30 s).");
        }
    }

    private static String withoutIndex(ConfigurationPropertyName name) {
        String text = name.toString();
        int index = text.indexOf('[');
        return (index < 0) ? text : text.substring(0, index);
    }

    private static boolean isBareNumber(Object value) {
        String text = String.valueOf(value).trim();
        return text.matches("\\d+") && !text.matches("0+");
    }
}
