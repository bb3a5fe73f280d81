package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;

/**
 * An application on Spring Boot 3.4 or older stops at startup saying which versions are supported, not on a missing
 * class; 3.5, 4.0 and 4.1 start.
 */
class SpringBootVersionCheckTest {

    @Test
    void springBoot34AndOlderAreRefusedWithTheSupportedVersions() {
        assertThatIllegalStateException().isThrownBy(() -> SpringBootVersionCheck.check("3.4.10"))
            .withMessage("distlock's Spring Boot starter needs Spring Boot 3.5, 4.0 or 4.1 (Spring Framework 6.2 or 7) "
                    + "on Java 17 or later, but this application runs Spring Boot 3.4.10. Upgrade the application to "
                    + "Spring Boot 3.5 or later, or use lock-core without the starter.");
        assertThatIllegalStateException().isThrownBy(() -> SpringBootVersionCheck.check("2.7.18"))
            .withMessageContaining("runs Spring Boot 2.7.18");
        assertThatIllegalStateException().isThrownBy(() -> SpringBootVersionCheck.check("3.0.0-M1"))
            .withMessageContaining("runs Spring Boot 3.0.0-M1");
    }

    @Test
    void springBoot35And4AndUnknownVersionsPass() {
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check("3.5.0"));
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check("3.5.7"));
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check("3.6.0-SNAPSHOT"));
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check("4.0.3"));
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check("4.1.1"));
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check(SpringBootVersion.getVersion()));
        assertThatNoException().isThrownBy(() -> SpringBootVersionCheck.check(null));
    }

    @Test
    void theCheckIsRegisteredAsAnInitializer() {
        org.assertj.core.api.Assertions.assertThat(new SpringApplication().getInitializers())
            .hasAtLeastOneElementOfType(SpringBootVersionCheck.class);
    }
}
