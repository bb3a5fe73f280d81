package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.RedisNode;
import dev.distlock.test.SentinelTopology;

/** Redis clients and lock services for one test or one client process; closes all it made. */
final class Clients implements AutoCloseable {

    private final List<AutoCloseable> resources = new ArrayList<>();

    StringRedisTemplate template(int port, Duration commandTimeout) {
        return template(new RedisStandaloneConfiguration("127.0.0.1", port), commandTimeout);
    }

    /** A client that logs in as {@code user} (null for the default user) with {@code password}. */
    StringRedisTemplate template(int port, String user, String password) {
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("127.0.0.1", port);
        server.setUsername(user);
        server.setPassword(password);
        return template(server, Duration.ofSeconds(2));
    }

    /** A client of the master that the Sentinels of {@code topology} name, following it through a failover. */
    StringRedisTemplate template(SentinelTopology topology, Duration commandTimeout) {
        RedisSentinelConfiguration sentinels = new RedisSentinelConfiguration().master(topology.masterName());
        for (RedisNode sentinel : topology.sentinels()) {
            sentinels.sentinel("127.0.0.1", sentinel.port());
        }
        return template(sentinels, commandTimeout);
    }

    private StringRedisTemplate template(RedisConfiguration server, Duration commandTimeout) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(server,
                LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
        factory.afterPropertiesSet();
        factory.start();
        this.resources.add(factory::destroy);
        return new StringRedisTemplate(factory);
    }

    RedisLockService service(int port, Duration commandTimeout, UnaryOperator<RedisLockServiceBuilder> settings) {
        return service(template(port, commandTimeout), settings);
    }

    RedisLockService service(StringRedisTemplate template, UnaryOperator<RedisLockServiceBuilder> settings) {
        // Test servers are fresh processes: no restart grace unless a test sets one
        RedisLockService service = settings.apply(RedisLockService.builder(template).restartGrace(Duration.ZERO))
            .build();
        this.resources.add(service);
        return service;
    }

    /** Closes {@code resource} with the rest. */
    void register(AutoCloseable resource) {
        this.resources.add(resource);
    }

    @Override
    public void close() {
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            try {
                this.resources.get(i).close();
            }
            catch (Exception ex) {
                // closing after a fault may fail; the next resource still gets closed
            }
        }
        this.resources.clear();
    }
}
