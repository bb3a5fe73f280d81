package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import redis.embedded.RedisServer;

/** With spring.data.redis.* set, the app uses that Redis and starts none of its own. */
@RedisTest
class ConfiguredRedisTest {

    @Test
    void usesTheConfiguredRedisAndStartsNothing(RedisNode redis) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
            .run("--server.port=0", "--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port())) {
            assertThat(context.getBeansOfType(RedisServer.class)).isEmpty();
            // the stock is written to the configured server at start-up
            assertThat(redis.call("GET", "sample:sale:tshirt:stock")).isEqualTo("100");
        }
    }
}
