package dev.distlock.bench.clients;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Spring Data Redis connection factory on Lettuce with default settings (one shared native connection for all
 * threads), as distlock, RedisLockRegistry and the raw floor use it: they differ only in what they send.
 */
final class LettuceConnection implements AutoCloseable {

    private static final LettuceClientConfiguration CLIENT = LettuceClientConfiguration.builder()
        .commandTimeout(Duration.ofSeconds(10))
        .build();

    final LettuceConnectionFactory factory;

    final StringRedisTemplate template;

    LettuceConnection(int port) {
        this(new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port), CLIENT));
    }

    /** A connection to a Redis Cluster, through any of its nodes ("127.0.0.1:port"). */
    LettuceConnection(List<String> clusterNodes) {
        this(new LettuceConnectionFactory(new RedisClusterConfiguration(clusterNodes), CLIENT));
    }

    private LettuceConnection(LettuceConnectionFactory factory) {
        this.factory = factory;
        this.factory.afterPropertiesSet();
        this.factory.start();
        this.template = new StringRedisTemplate(this.factory);
    }

    @Override
    public void close() {
        this.factory.destroy();
    }
}
