package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockService;
import dev.distlock.spring.LockContexts;

/**
 * Unknown {@code distlock.*} properties and duration properties without a unit stop startup, naming the property and
 * the nearest valid one; the valid names include those of any {@code @ConfigurationProperties} bound under
 * {@code distlock}, such as another module's. Nothing here reaches Redis: the check runs before the startup check.
 */
class DistributedLockPropertiesCheckTest {

    /** No Redis listens on port 1; the properties check fails startup before anything connects. */
    private static ApplicationContextRunner runner() {
        return LockContexts.runner(1).withPropertyValues("distlock.verify-access-on-startup=false")
            .withUserConfiguration(ExtraModuleConfiguration.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distlock.wait-time=5s            | distlock.wait-time                | distlock.default-wait-time
            distlock.lease-time=10s          | distlock.lease-time               | distlock.watchdog.lease
            distlock.watchdog.leese=10s      | distlock.watchdog.leese           | distlock.watchdog.lease
            distlock.keyprefix=orders        | distlock.keyprefix                | distlock.key-prefix
            distlock.extra.swich-on=true     | distlock.extra.swich-on           | distlock.extra.switch-on
            """)
    void anUnknownPropertyStopsStartupNamingTheNearestValidOne(String setting, String name, String nearest) {
        runner().withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                .hasMessageContaining(name + " (set in ")
                .hasMessageContaining("is not a distlock property; did you mean " + nearest + "?");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "distlock.watchdog.lease=30", "distlock.default-wait-time=30",
            "distlock.quorum.node-timeout=30" })
    void aDurationWithoutAUnitStopsStartup(String setting) {
        String name = setting.substring(0, setting.indexOf('='));
        runner().withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                .hasMessageContaining(name + " (set in ")
                .hasMessageContaining("is 30 with no unit, which would mean 30 milliseconds; write the unit, such as "
                        + "30s or 30ms");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "distlock.default-wait-time=0", "distlock.watchdog.lease=30s",
            "distlock.extra.switch-on=true", "distlock.quorum.node-timeout=200ms", "distlock.aspect.order=5",
            "distlock.replica-acknowledgements.timeout=300ms", "distlock.on-not-acquired=skip" })
    void validPropertiesStart(String setting) {
        runner().withPropertyValues(setting)
            .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockService.class));
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aLeaseUnderASecondIsWarnedAboutWithTheValueAsRead(CapturedOutput output) {
        runner().withPropertyValues("distlock.watchdog.lease=30ms")
            .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("distlock.watchdog.lease is 30 ms: the watchdog renews every 10 ms");
        runner().withPropertyValues("distlock.watchdog.lease=2s", "distlock.default-wait-time=20ms")
            .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("distlock.watchdog.lease is 2.0 s");
    }

    @ParameterizedTest
    @ValueSource(strings = { "distlock.wait-time=5s" })
    void distlockEnabledFalseChecksNothing(String setting) {
        runner().withPropertyValues(setting, "distlock.enabled=false")
            .run(context -> assertThat(context).hasNotFailed());
    }

    /** Stands for another module's properties under distlock, such as distlock.shedlock.*. */
    @ConfigurationProperties("distlock.extra")
    static class ExtraModuleProperties {

        private boolean switchOn;

        private Duration pause = Duration.ofSeconds(1);

        public boolean isSwitchOn() {
            return this.switchOn;
        }

        public void setSwitchOn(boolean switchOn) {
            this.switchOn = switchOn;
        }

        public Duration getPause() {
            return this.pause;
        }

        public void setPause(Duration pause) {
            this.pause = pause;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties(ExtraModuleProperties.class)
    static class ExtraModuleConfiguration {
    }
}
