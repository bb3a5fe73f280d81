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

    /** How long closing one resource may take before it is left behind. */
    private static final Duration CLOSE_BOUND = Duration.ofSeconds(30);

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

    /**
     * Closes every resource, the last made first, each within {@link #CLOSE_BOUND}: Lettuce's client shutdown, which
     * closing a connection factory runs, can wait forever for a connection's close (redis/lettuce#2278; a 30-minute
     * explorer soak hung there once, after its checks had passed). A resource that does not close in time is left
     * behind, said on standard error, and the rest are closed.
     */
    @Override
    public void close() {
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            AutoCloseable resource = this.resources.get(i);
            Thread closer = new Thread(() -> {
                try {
                    resource.close();
                }
                catch (Exception ex) {
                    // closing after a fault may fail; the next resource still gets closed
                }
            }, "clients-close");
            closer.setDaemon(true);
            closer.start();
            try {
                closer.join(CLOSE_BOUND.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
            if (closer.isAlive()) {
                System.err.println("[clients] " + resource.getClass().getName() + " did not close within "
                        + CLOSE_BOUND.toSeconds() + " s; left behind");
            }
        }
        this.resources.clear();
    }
}
