package dev.distlock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;

/** Lock services of one Redis server, each on its own connection as separate nodes would be. Closes them all. */
final class RedisServices implements AutoCloseable {

    private final List<AutoCloseable> resources = new ArrayList<>();

    private final RedisNode redis;

    RedisServices(RedisNode redis) {
        this.redis = redis;
    }

    RedisLockService service() {
        return service(Duration.ZERO); // a fresh test server
    }

    RedisLockService service(Duration restartGrace) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", this.redis.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        this.resources.add(factory::destroy);
        RedisLockService service = RedisLockService.builder(new StringRedisTemplate(factory))
            .restartGrace(restartGrace)
            .build();
        this.resources.add(service);
        return service;
    }

    @Override
    public void close() throws Exception {
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            this.resources.get(i).close();
        }
        this.resources.clear();
    }
}
