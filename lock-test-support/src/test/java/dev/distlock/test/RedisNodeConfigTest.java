package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisNodeConfigTest {

    @Test
    void directivesBecomeCommandLineArguments() {
        RedisNodeConfig config = RedisNodeConfig.defaults()
                .directives("maxmemory 10mb", "save \"\"", "user 'bob smith' on")
                .directive("requirepass", "p w");

        assertThat(config.arguments()).containsExactly(
                "--maxmemory", "10mb", "--save", "", "--user", "bob smith", "on", "--requirepass", "p w");
        assertThat(config.directives()).containsExactly(
                "maxmemory 10mb", "save \"\"", "user \"bob smith\" on", "requirepass \"p w\"");
        assertThat(config.password()).isEqualTo("p w");
        assertThat(RedisNodeConfig.defaults().arguments()).isEmpty();
    }

    @Test
    void explicitAuthWinsOverRequirepass() {
        RedisNodeConfig config = RedisNodeConfig.defaults().requirePass("a").auth("alice", "b");

        assertThat(config.user()).isEqualTo("alice");
        assertThat(config.password()).isEqualTo("b");
    }

    @Test
    void rejectsBadInput() {
        assertThatThrownBy(() -> RedisNodeConfig.defaults().directive("  ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisNodeConfig.defaults().directive("save \"")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisNodeConfig.defaults().callTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
