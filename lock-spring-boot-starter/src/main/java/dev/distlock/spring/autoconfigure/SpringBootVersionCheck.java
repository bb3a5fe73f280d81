package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Stops an application on a Spring Boot older than 3.5 before the auto-configuration is loaded, which would fail on
 * a missing class or method: with a message that says which versions distlock supports. Registered in
 * {@code spring.factories} as an initializer, an interface every Boot loads, and uses no API that old Boots lack.
 */
public final class SpringBootVersionCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The supported versions, as the README's compatibility line gives them. */
    static final String SUPPORTED = "Spring Boot 3.5, 4.0 or 4.1 (Spring Framework 6.2 or 7) on Java 17 or later";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        check(SpringBootVersion.getVersion());
    }

    /** @throws IllegalStateException when {@code version} is known and older than 3.5 */
    static void check(@Nullable String version) {
        if (version == null || version.isEmpty() || !Character.isDigit(version.charAt(0))) {
            return; // unknown (a repackaged Boot, for instance): let the application try
        }
        String[] parts = version.split("\\.", 3);
        int major = number(parts[0]);
        int minor = (parts.length > 1) ? number(parts[1]) : 0;
        if (major < 3 || (major == 3 && minor < 5)) {
            throw new IllegalStateException("distlock's Spring Boot starter needs " + SUPPORTED + ", but this "
                    + "application runs Spring Boot " + version + ". Upgrade the application to Spring Boot 3.5 or "
                    + "later, or use lock-core without the starter.");
        }
    }

    /** The leading digits of a version part ("0" of "0-M1"), 0 when it has none. */
    private static int number(String part) {
        String digits = part.replaceAll("\\D.*", "");
        return digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }
}
