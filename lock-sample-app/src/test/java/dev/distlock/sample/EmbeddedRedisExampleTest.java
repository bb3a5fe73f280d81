package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import redis.embedded.RedisServer;

import dev.distlock.LockHandle;
import dev.distlock.LockService;

/**
 * The example of docs/testing.md: an application's integration test against a real Redis without Docker. A
 * redis-server from {@code org.signal:embedded-redis} starts once for the class on a free loopback port, Spring Boot
 * connects to it through {@code spring.data.redis.*}, and since it is new and empty the restart grace is turned off
 * ({@code distlock.safety.restart-grace=0s}), so the first lock is granted at once. Redis stops as the context
 * closes, after the Redis clients, so that none is left to log reconnect WARNs (see EmbeddedRedisRecipeTest).
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE, properties = "distlock.safety.restart-grace=0s")
@DirtiesContext // the context closes as the class ends, and Redis stops with it (StopRedisLast)
class EmbeddedRedisExampleTest {

    private static int port;

    static RedisServer redis;

    @Autowired
    private LockService locks;

    @Autowired
    private StringRedisTemplate template;

    @BeforeAll
    static void startRedis() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        redis = RedisServer.builder().port(port).bind("127.0.0.1").setting("save \"\"").setting("appendonly no")
            .build();
        redis.start();
    }

    /** Stops Redis as the context closes, after the lock service and the Redis clients: no reconnect WARNs. */
    @TestConfiguration(proxyBeanMethods = false)
    static class StopRedisLast {

        @Bean
        DisposableBean embeddedRedis() {
            return () -> redis.stop();
        }
    }

    @DynamicPropertySource
    static void redisProperties(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", () -> "127.0.0.1");
        registry.add("spring.data.redis.port", () -> port);
    }

    @Test
    void theLockIsHeldInTheTestsRedisUntilReleased() {
        assertThat(((LettuceConnectionFactory) this.template.getRequiredConnectionFactory()).getPort())
            .isEqualTo(port);
        String lockHash = "sample-locks:{stock:example}:lock"; // distlock.key-prefix of application.yml
        try (LockHandle lock = this.locks.acquire("stock:example")) {
            // the lock is a hash naming its holder (docs/data-layout.md)
            assertThat(this.template.<String, String>opsForHash().entries(lockHash)).containsEntry("owner",
                    lock.ownerToken());
        }
        // the key keeps only the last token and its run
        assertThat(this.template.<String, String>opsForHash().entries(lockHash)).doesNotContainKey("owner")
            .containsKeys("fence", "chain");
    }
}
