package dev.distlock.sample.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.embedded.RedisServer;

/**
 * Starts a redis-server from the static binary in {@code org.signal:embedded-redis} when no Redis is configured, on a
 * free loopback port, and stops it on shutdown. As soon as {@code spring.data.redis.host}, {@code port}, {@code url},
 * {@code sentinel.*} or {@code cluster.*} is set, nothing is started and Spring Boot connects to that Redis.
 *
 * <p>The embedded server gets its own connection factory (Spring Data Redis's, the same on Spring Boot 3.5 and 4),
 * which Spring Boot's Redis auto-configuration backs off for; the other {@code spring.data.redis.*} settings apply only
 * to a configured Redis.
 */
@Configuration(proxyBeanMethods = false)
public class EmbeddedRedisConfiguration {

    private static final Log logger = LogFactory.getLog(EmbeddedRedisConfiguration.class);

    @Bean(destroyMethod = "stop")
    @Conditional(NoRedisConfigured.class)
    RedisServer embeddedRedisServer(@Value("${distlock.key-prefix:distlock}") String keyPrefix) throws IOException {
        int port = freeLoopbackPort();
        RedisServer server = RedisServer.builder()
            .port(port)
            .bind("127.0.0.1")
            .setting("save \"\"")
            .setting("appendonly no")
            .build();
        server.start();
        declareFresh(port, keyPrefix);
        logger.info("No Redis configured (spring.data.redis.*): started an embedded redis-server on 127.0.0.1:" + port);
        return server;
    }

    /**
     * This Redis was started just now, empty, by this application: no lease granted before can be running, so it is
     * declared fresh (the restart grace's marker) and grants locks at once instead of after the restart grace.
     */
    private static void declareFresh(int port, String keyPrefix) {
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            connection.sync().set(keyPrefix + ":restart-grace", "1");
        }
        finally {
            client.shutdown();
        }
    }

    @Bean
    @Conditional(NoRedisConfigured.class)
    LettuceConnectionFactory embeddedRedisConnectionFactory(RedisServer embeddedRedisServer) {
        int port = (Integer) embeddedRedisServer.ports().get(0);
        return new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
    }

    private static int freeLoopbackPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** True when no Redis connection is configured, so the sample brings its own. */
    static class NoRedisConfigured implements Condition {

        private static final String[] PROPERTIES = { "spring.data.redis.host", "spring.data.redis.port",
                "spring.data.redis.url", "spring.data.redis.sentinel.master", "spring.data.redis.cluster.nodes" };

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Environment environment = context.getEnvironment();
            for (String property : PROPERTIES) {
                if (environment.containsProperty(property)) {
                    logger.info("Using the configured Redis (" + property + " is set); no embedded Redis started");
                    return false;
                }
            }
            return true;
        }
    }
}
