package dev.distlock.bench.clients;

import java.time.Duration;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A Spring Data Redis connection factory on Lettuce with default settings (one shared native connection for all
 * threads), as distlock, RedisLockRegistry and the raw floor use it: they differ only in what they send.
 */
final class LettuceConnection implements AutoCloseable {

    final LettuceConnectionFactory factory;

    final StringRedisTemplate template;

    LettuceConnection(int port) {
        this.factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(10)).build());
        this.factory.afterPropertiesSet();
        this.factory.start();
        this.template = new StringRedisTemplate(this.factory);
    }

    @Override
    public void close() {
        this.factory.destroy();
    }
}
