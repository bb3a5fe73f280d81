package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.NestedExceptionUtils;

import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.LockContexts;

/**
 * The lock service's builder owns the bounds of the settings; a value it refuses stops startup naming the property
 * (in Boot's failure report, with where it was set), its reason in property names, before anything connects to
 * Redis (nothing listens on port 1).
 */
class BuilderRefusalTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distlock.token-retention=10ms      | must be between 1s and 7 days, but was 10 ms
            distlock.default-wait-time=-1s     | must not be negative, but was -1.0 s
            distlock.key-prefix=a{b}           | must not contain braces or control characters, but was 'a{b}'
            distlock.max-key-length=2048       | must be between 1 and 1024, but was 2048
            distlock.hand-off.max-time=0s      | must be positive, but was 0 ms
            distlock.safety.restart-grace=8d   | must be between 0 and 7 days, but was 8 d 0 h
            distlock.redis.call-timeout=0s     | must be between 1ms and 1 hour, but was 0 ms
            distlock.replica-acknowledgements.timeout=2m | must be between 1ms and 1 minute, but was 2 min 0 s
            distlock.watchdog.renewal-interval=40s | (40.0 s) must be shorter than distlock.watchdog.lease (30.0 s)
            """)
    void aValueTheBuilderRefusesStopsStartupNamingTheProperty(String setting, String reason) {
        String property = setting.substring(0, setting.indexOf('='));
        LockContexts.runner(1).withPropertyValues("distlock.verify-access-on-startup=false", setting).run(context -> {
            assertThat(context).hasFailed();
            InvalidConfigurationPropertyValueException refusal = findCause(context.getStartupFailure());
            assertThat(refusal.getName()).isEqualTo(property);
            assertThat(refusal.getReason()).isEqualTo(property + " " + reason);
            assertThat(refusal).hasCauseInstanceOf(IllegalArgumentException.class);
        });
    }

    @Test
    void settingsThatContradictEachOtherNameTheFirstProperty() {
        LockContexts.runner(1)
            .withPropertyValues("distlock.verify-access-on-startup=false", "distlock.sharding-proxy=true",
                    "distlock.wait-strategy=pubsub")
            .run(context -> {
                InvalidConfigurationPropertyValueException refusal = findCause(context.getStartupFailure());
                assertThat(refusal.getName()).isEqualTo("distlock.wait-strategy");
                assertThat(refusal.getReason()).startsWith("distlock.wait-strategy PUBSUB does not work behind a "
                        + "sharding proxy");
            });
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void bootsFailureReportNamesThePropertyAndWhereItWasSet(CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(RefusedApplication.class)
            .web(WebApplicationType.NONE)
            .properties("spring.config.location=classpath:/properties-check/refused.yml");
        assertThatThrownBy(() -> {
            try (ConfigurableApplicationContext context = application.run()) {
                assertThat(context).isNull();
            }
        }).hasRootCauseInstanceOf(IllegalArgumentException.class);
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value '10ms' for configuration property 'distlock.token-retention' (originating from "
                    + "'class path resource [properties-check/refused.yml] - 7:")
            .contains("distlock.token-retention must be between 1s and 7 days, but was 10 ms");
    }

    private static InvalidConfigurationPropertyValueException findCause(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof InvalidConfigurationPropertyValueException refusal) {
                return refusal;
            }
        }
        throw new AssertionError("no InvalidConfigurationPropertyValueException in "
                + NestedExceptionUtils.getMostSpecificCause(failure), failure);
    }

    @Configuration(proxyBeanMethods = false)
    @Import(BootAutoConfigurations.DataRedis.class)
    @ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class,
            DistributedLockAutoConfiguration.class, DistributedLockPropertiesCheckAutoConfiguration.class })
    static class RefusedApplication {
    }
}
