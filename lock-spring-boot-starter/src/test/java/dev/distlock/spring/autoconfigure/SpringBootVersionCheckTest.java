package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;

/** An application on Spring Boot 3 stops at startup saying which versions are supported, not on a missing class. */
class SpringBootVersionCheckTest {

    @Test
    void springBoot3IsRefusedWithTheSupportedVersions() {
        assertThatIllegalStateException().isThrownBy(() -> SpringBootVersionCheck.check("3.5.6"))
            .withMessage("distlock's Spring Boot starter needs Spring Boot 4.0 or 4.1 (Spring Framework 7) on Java 17 "
                    + "or later, but this application runs Spring Boot 3.5.6. Upgrade the application to Spring Boot "
                    + "4, or use lock-core without the starter.");
    }

    @Test
    void springBoot4AndUnknownVersionsPass() {
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
