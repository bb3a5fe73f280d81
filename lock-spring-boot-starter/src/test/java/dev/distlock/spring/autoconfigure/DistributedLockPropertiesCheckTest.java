package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import dev.distlock.LockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.LockContexts;

/**
 * Unknown {@code distlock.*} properties and duration properties without a unit stop startup, naming the property and
 * the nearest valid one; the valid names include those of any {@code @ConfigurationProperties} bound under
 * {@code distlock}, such as another module's. Only configuration (files, arguments, test properties) stops startup:
 * environment variables and system properties, which Kubernetes and build tools set for their own reasons, are logged
 * at most. Nothing here reaches Redis: the check runs before the startup check.
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

    @Test
    void anUnrelatedNameGetsNoSuggestion() {
        runner().withPropertyValues("distlock.redis.service.host=10.0.0.7").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining("distlock.redis.service.host (set in ")
                .hasMessageContaining("is not a distlock property")
                .hasMessageNotContaining("did you mean");
        });
    }

    /** What Kubernetes injects for a Service named distlock-redis, in every pod of its namespace. */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void kubernetesServiceVariablesDoNotStopStartup(CapturedOutput output) {
        Map<String, Object> variables = Map.of("DISTLOCK_REDIS_SERVICE_HOST", "10.0.0.7",
                "DISTLOCK_REDIS_SERVICE_PORT", "6379", "DISTLOCK_REDIS_PORT", "tcp://10.0.0.7:6379",
                "DISTLOCK_REDIS_PORT_6379_TCP_ADDR", "10.0.0.7");
        runner().withInitializer(context -> context.getEnvironment().getPropertySources()
            .addLast(new SystemEnvironmentPropertySource("test-systemEnvironment", variables)))
            .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockService.class));
        assertThat(output).doesNotContain("distlock.redis");
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aLikelyTypoInAnEnvironmentVariableIsAWarning(CapturedOutput output) {
        Map<String, Object> variables = Map.of("DISTLOCK_WATCHDOG_LEESE", "10s", "DISTLOCK_DEFAULT_WAIT_TIME", "30");
        runner().withInitializer(context -> context.getEnvironment().getPropertySources()
            .addLast(new SystemEnvironmentPropertySource("test-systemEnvironment", variables)))
            .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("WARN")
            .contains("distlock.watchdog.leese (set in ")
            .contains("did you mean distlock.watchdog.lease?")
            .contains("distlock.default-wait-time (set in ")
            .contains("is 30 with no unit");
    }

    @Test
    void systemPropertiesOfBuildToolsAndTestSupportDoNotStopStartup() {
        runner().withSystemProperties("distlock.version=0.2.0", "distlock.test.redis=binary")
            .run(context -> assertThat(context).hasNotFailed());
        runner().withPropertyValues("distlock.test.redis=container", "distlock.test.nutcracker=/usr/sbin/nutcracker")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void theCheckCanOnlyWarnOrBeOff(CapturedOutput output) {
        runner().withPropertyValues("distlock.wait-time=5s", "distlock.properties-check=warn")
            .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("distlock.wait-time (set in ")
            .contains("did you mean distlock.default-wait-time?");
        runner().withPropertyValues("distlock.lock-timeout=5s", "distlock.properties-check=off")
            .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("distlock.lock-timeout");
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aTypoInApplicationYmlStopsStartupNamingFileAndLineInBootsFailureReport(CapturedOutput output) {
        SpringApplicationBuilder application = new SpringApplicationBuilder(TypoApplication.class)
            .web(WebApplicationType.NONE)
            .properties("spring.config.location=classpath:/properties-check/typo.yml");
        assertThatThrownBy(() -> {
            try (ConfigurableApplicationContext context = application.run()) {
                assertThat(context).isNull();
            }
        }).isInstanceOf(InvalidDistributedLockPropertiesException.class)
            .hasMessageContaining("listed at https://")
            .hasMessageEndingWith("did you mean distlock.watchdog.lease?")
            .hasMessageNotContaining("?.");
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("distlock.watchdog.leese (set in class path resource [properties-check/typo.yml] - 8:")
            .contains("did you mean distlock.watchdog.lease?")
            .doesNotContain("?.")
            .contains("the distlock properties are listed at https://")
            .doesNotContain("listed in docs/")
            .contains("distlock.properties-check=warn");
    }

    @Test
    void startupFailuresLinkToThePublishedDocsAddressTheBuildSets() throws Exception {
        Properties docs = new Properties();
        try (InputStream in = DocsAddress.class.getResourceAsStream("docs.properties")) {
            assertThat(in).as("docs.properties on the class path").isNotNull();
            docs.load(in);
        }
        assertThat(docs.getProperty("url")).as("filled in from the build property distlock.docs.url")
            .startsWith("https://")
            .doesNotContain("${");
        assertThat(InvalidDistributedLockPropertiesFailureAnalyzer.ACTION)
            .contains("listed at " + docs.getProperty("url") + "/spring-boot.md)");
    }

    @Configuration(proxyBeanMethods = false)
    @Import(BootAutoConfigurations.DataRedis.class)
    @ImportAutoConfiguration({ PropertyPlaceholderAutoConfiguration.class,
            DistributedLockAutoConfiguration.class, DistributedLockPropertiesCheckAutoConfiguration.class })
    static class TypoApplication {
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
