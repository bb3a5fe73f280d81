package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.context.ApplicationContext;

/**
 * Stops startup, before Redis is contacted, when a property under {@code distlock.*} is not one distlock (or a module
 * adding {@code distlock.*} properties) declares, naming the nearest valid one, or when a duration property is a bare
 * number, which Spring reads as milliseconds ({@code distlock.watchdog.lease: 30} would be 30 ms). A bare 0 is
 * accepted. The valid names come from {@link DistributedLockPropertyNames}. A watchdog lease under a second is
 * logged as a WARN with the value as read.
 */
final class DistributedLockPropertiesCheck implements SmartInitializingSingleton {

    private static final ConfigurationPropertyName ROOT =
            ConfigurationPropertyName.of(DistributedLockProperties.PREFIX);

    private static final Log logger = LogFactory.getLog(DistributedLockPropertiesCheck.class);

    private static final Duration SHORT_LEASE = Duration.ofSeconds(1);

    private final ApplicationContext context;

    DistributedLockPropertiesCheck(ApplicationContext context) {
        this.context = context;
    }

    /** @throws IllegalStateException listing every unknown or unit-less property, with where it was set */
    @Override
    public void afterSingletonsInstantiated() {
        DistributedLockPropertyNames names = DistributedLockPropertyNames.of(this.context);
        List<String> problems = new ArrayList<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.context.getEnvironment())) {
            if (!(source instanceof IterableConfigurationPropertySource iterable)) {
                continue;
            }
            iterable.filter(ROOT::isAncestorOf).stream().forEach(name -> {
                String key = withoutIndex(name);
                ConfigurationProperty property = iterable.getConfigurationProperty(name);
                String origin = (property != null && property.getOrigin() != null)
                        ? " (set in " + property.getOrigin() + ")" : "";
                if (!names.isKnown(key)) {
                    String nearest = names.nearest(key);
                    problems.add(key + origin + " is not a distlock property"
                            + ((nearest != null) ? "; did you mean " + nearest + "?" : ""));
                }
                else if (names.isDuration(key) && property != null && isBareNumber(property.getValue())) {
                    problems.add(key + origin + " is " + property.getValue() + " with no unit, which would mean "
                            + property.getValue() + " milliseconds; write the unit, such as " + property.getValue()
                            + "s or " + property.getValue() + "ms");
                }
            });
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("Invalid distlock configuration: " + String.join("; ", problems)
                    + ". The properties are listed in docs/spring-boot.md.");
        }
        DistributedLockProperties properties = this.context.getBeanProvider(DistributedLockProperties.class)
            .getIfAvailable();
        if (properties != null) {
            warnAboutShortLease(properties.getWatchdog());
        }
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
