package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisLockService;
import dev.distlock.test.ClusterTopology;

/**
 * Clients of a Redis Cluster, each with a connection factory of its own as separate services would have, and lock
 * services on them. Closes everything it made, last made first.
 */
final class TopologyClients implements AutoCloseable {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** A client of the cluster through Spring Data Redis's cluster support, as the given ACL user (null: default). */
    StringRedisTemplate cluster(ClusterTopology cluster, String user, String password) {
        RedisClusterConfiguration configuration = new RedisClusterConfiguration(cluster.seedNodes());
        configuration.setUsername(user);
        configuration.setPassword(password);
        return started(new LettuceConnectionFactory(configuration,
                LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build()));
    }

    RedisLockService service(StringRedisTemplate template, UnaryOperator<RedisLockService.Builder> settings) {
        RedisLockService service = settings.apply(RedisLockService.builder(template)).build();
        this.resources.add(service);
        return service;
    }

    private StringRedisTemplate started(LettuceConnectionFactory factory) {
        factory.afterPropertiesSet();
        factory.start();
        this.resources.add(factory::destroy);
        return new StringRedisTemplate(factory);
    }

    @Override
    public void close() {
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            try {
                this.resources.get(i).close();
            }
            catch (Exception ex) {
                // the next resource still gets closed
            }
        }
        this.resources.clear();
    }
}
