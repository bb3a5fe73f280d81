package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.testcontainers.lifecycle.TestcontainersLifecycleApplicationContextInitializer;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import dev.distlock.LockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * A Redis the application starts itself (Testcontainers {@code @ServiceConnection}, Docker Compose) is new by
 * construction: the service gets no restart grace unless {@code distlock.safety.restart-grace} is set. Property-based
 * connection details keep the grace. The container test runs only where a Docker engine answers, and is skipped
 * (not failed) elsewhere.
 */
class FreshRedisTest {

    private String graceProperty;

    /** The tests' surefire configuration sets the grace to 0 for all; these need it unset. */
    @BeforeEach
    void unsetTheGraceProperty() {
        this.graceProperty = System.clearProperty(FreshRedis.PROPERTY);
    }

    @AfterEach
    void restoreTheGraceProperty() {
        if (this.graceProperty != null) {
            System.setProperty(FreshRedis.PROPERTY, this.graceProperty);
        }
    }

    private static ApplicationContextRunner withoutGraceProperty(ApplicationContextRunner runner) {
        return runner.withInitializer(new TestcontainersLifecycleApplicationContextInitializer())
            .withConfiguration(AutoConfigurations.of(ServiceConnectionAutoConfiguration.class));
    }

    @Test
    void connectionDetailsOfTestcontainersAndDockerComposeAreRecognised() throws Exception {
        // Boot 4 moved both into its data-redis module
        String container = BootAutoConfigurations.BOOT_3
                ? "org.springframework.boot.testcontainers.service.connection.redis."
                        + "RedisContainerConnectionDetailsFactory$RedisContainerConnectionDetails"
                : "org.springframework.boot.data.redis.testcontainers."
                        + "RedisContainerConnectionDetailsFactory$RedisContainerConnectionDetails";
        String properties = BootAutoConfigurations.BOOT_3
                ? "org.springframework.boot.autoconfigure.data.redis.PropertiesRedisConnectionDetails"
                : "org.springframework.boot.data.redis.autoconfigure.PropertiesDataRedisConnectionDetails";
        assertThat(FreshRedis.isStartedByTheApplication(Class.forName(container))).isTrue();
        assertThat(FreshRedis.isStartedByTheApplication(Class.forName(properties))).isFalse();
        assertThat(FreshRedis.isStartedByTheApplication(OwnConnectionDetails.class)).isFalse();
    }

    @Test
    void aRedisConfiguredByPropertiesKeepsTheGrace() {
        LockContexts.runner(1).withPropertyValues("distlock.verify-access-on-startup=false")
            .run(context -> assertThat(context.getBean(RestartGraceMonitor.class).grace())
                .isEqualTo(Duration.ofSeconds(30)));
    }

    @Test
    @EnabledIf("dockerIsAvailable")
    void aServiceConnectionContainerIsFreshAndLocksAtOnce() {
        withoutGraceProperty(LockContexts.runner(1)).withUserConfiguration(ContainerConfiguration.class)
            .run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(RestartGraceMonitor.class).grace()).isZero();
                context.getBean(LockService.class).tryAcquire("fresh").orElseThrow().release();
            });
        withoutGraceProperty(LockContexts.runner(1)).withUserConfiguration(ContainerConfiguration.class)
            .withPropertyValues(FreshRedis.PROPERTY + "=30s")
            .run(context -> assertThat(context.getBean(RestartGraceMonitor.class).grace())
                .isEqualTo(Duration.ofSeconds(30)));
    }

    static boolean dockerIsAvailable() {
        boolean hint = System.getenv("DOCKER_HOST") != null || Files.exists(Path.of("/var/run/docker.sock"))
                || Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
        return hint && DockerClientFactory.instance().isDockerAvailable();
    }

    @Configuration(proxyBeanMethods = false)
    static class ContainerConfiguration {

        @Bean
        @ServiceConnection("redis")
        GenericContainer<?> redisContainer() {
            return new GenericContainer<>("redis:7-alpine").withExposedPorts(6379);
        }
    }

    /** Connection details of an application's own making: not known to be new. */
    abstract static class OwnConnectionDetails implements ConnectionDetails {
    }
}
