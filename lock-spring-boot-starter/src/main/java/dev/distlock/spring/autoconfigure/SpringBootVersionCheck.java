package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootVersion;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Stops an application on a Spring Boot older than 4.0 before the auto-configuration is loaded, which would fail on
 * a missing class (Boot 4 moved its Redis auto-configuration): with a message that says which versions distlock
 * supports. Registered in {@code spring.factories} as an initializer, an interface Boot 3 and 4 both load, and uses no
 * API that Boot 3 lacks.
 */
public final class SpringBootVersionCheck implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The supported versions, as the README's compatibility line gives them. */
    static final String SUPPORTED = "Spring Boot 4.0 or 4.1 (Spring Framework 7) on Java 17 or later";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        check(SpringBootVersion.getVersion());
    }

    /** @throws IllegalStateException when {@code version} is known and older than 4.0 */
    static void check(@Nullable String version) {
        if (version == null || version.isEmpty() || !Character.isDigit(version.charAt(0))) {
            return; // unknown (a repackaged Boot, for instance): let the application try
        }
        int dot = version.indexOf('.');
        int major = Integer.parseInt(version.substring(0, (dot < 0) ? version.length() : dot).replaceAll("\\D.*", ""));
        if (major < 4) {
            throw new IllegalStateException("distlock's Spring Boot starter needs " + SUPPORTED + ", but this "
                    + "application runs Spring Boot " + version + ". Upgrade the application to Spring Boot 4, or use "
                    + "lock-core without the starter.");
        }
    }
}
