package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RedisBackendTest {

    private final String original = System.getProperty(RedisBackend.PROPERTY);

    @AfterEach
    void restoreProperty() {
        if (original == null) {
            System.clearProperty(RedisBackend.PROPERTY);
        } else {
            System.setProperty(RedisBackend.PROPERTY, original);
        }
    }

    @Test
    void systemPropertySelectsTheBackend() {
        System.setProperty(RedisBackend.PROPERTY, " Binary ");
        assertThat(RedisBackend.configured()).isEqualTo(RedisBackend.BINARY);

        System.setProperty(RedisBackend.PROPERTY, "container");
        assertThat(RedisBackend.configured()).isEqualTo(RedisBackend.CONTAINER);

        System.setProperty(RedisBackend.PROPERTY, "bogus");
        assertThatThrownBy(RedisBackend::configured)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("binary, container, auto");
    }

    @Test
    void defaultsToAutoWhenNothingIsSet() {
        assumeTrue(original == null && System.getenv(RedisBackend.ENVIRONMENT_VARIABLE) == null);
        assertThat(RedisBackend.configured()).isEqualTo(RedisBackend.AUTO);
    }

    @Test
    void withoutDockerAutoUsesTheBinaryAndContainerFailsClearly() {
        assumeFalse(DockerProbe.isDockerAvailable(), "a Docker engine is available");

        assertThat(RedisBackend.AUTO.resolve()).isEqualTo(RedisBackend.BINARY);
        try (RedisServers servers = RedisServers.create()) {
            assertThatThrownBy(() -> servers.start(RedisNodeConfig.defaults().backend(RedisBackend.CONTAINER)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no Docker engine");
            assertThat(servers.start(RedisNodeConfig.defaults().backend(RedisBackend.AUTO)).pid()).isPositive();
        }
    }
}
