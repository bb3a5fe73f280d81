package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.protocol.ProtocolVersion;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.TwemproxyTopology;

/**
 * Clients of a Redis Cluster or of Twemproxy, each with a connection factory of its own as separate services would
 * have, and lock services on them. Closes everything it made, last made first.
 */
final class TopologyClients implements AutoCloseable {

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** A client of the cluster through Spring Data Redis's cluster support, as the given ACL user (null: default). */
    StringRedisTemplate cluster(ClusterTopology cluster, String user, String password) {
        RedisClusterConfiguration configuration = new RedisClusterConfiguration(cluster.seedNodes());
        configuration.setUsername(user);
        configuration.setPassword(password);
        return started(new LettuceConnectionFactory(configuration,
                LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build()));
    }

    /**
     * A client of the cluster that follows a failover, configured as docs/topologies.md tells users to: Lettuce
     * refreshes its view of the cluster every {@code refreshPeriod} and whenever a command is redirected or a node
     * cannot be reconnected (Spring Boot: {@code spring.data.redis.lettuce.cluster.refresh.period} and
     * {@code .adaptive=true}). Without it, commands for a failed master's slots keep going to the dead node.
     */
    StringRedisTemplate clusterFollowingFailovers(ClusterTopology cluster, Duration refreshPeriod) {
        return clusterFollowingFailovers(cluster, refreshPeriod, COMMAND_TIMEOUT);
    }

    /** {@link #clusterFollowingFailovers(ClusterTopology, Duration)} with the given command timeout. */
    StringRedisTemplate clusterFollowingFailovers(ClusterTopology cluster, Duration refreshPeriod,
            Duration commandTimeout) {
        return clusterFollowingFailovers(cluster.seedNodes(), refreshPeriod, commandTimeout);
    }

    /** The same from the nodes' {@code host:port} addresses (a client process knows no {@link ClusterTopology}). */
    StringRedisTemplate clusterFollowingFailovers(List<String> seedNodes, Duration refreshPeriod,
            Duration commandTimeout) {
        ClusterClientOptions options = ClusterClientOptions.builder()
            .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(refreshPeriod)
                .enableAllAdaptiveRefreshTriggers()
                .build())
            .build();
        return started(new LettuceConnectionFactory(new RedisClusterConfiguration(seedNodes),
                LettuceClientConfiguration.builder().commandTimeout(commandTimeout).clientOptions(options).build()));
    }

    /**
     * A client of Twemproxy. nutcracker closes the connection on any command it does not know, so Lettuce must not
     * send HELLO (RESP2 only), {@code CLIENT SETINFO} (no library name or version) or {@code CLIENT
     * MAINT_NOTIFICATIONS}; the README's "Behind Twemproxy" section shows the same factory.
     */
    StringRedisTemplate twemproxy(TwemproxyTopology proxy) {
        return twemproxy(proxy, COMMAND_TIMEOUT);
    }

    /** {@link #twemproxy(TwemproxyTopology)} with the given command timeout. */
    StringRedisTemplate twemproxy(TwemproxyTopology proxy, Duration commandTimeout) {
        ClientOptions options = ClientOptions.builder()
            .protocolVersion(ProtocolVersion.RESP2)
            .maintNotificationsConfig(MaintNotificationsConfig.disabled())
            .build();
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
            .commandTimeout(commandTimeout)
            .clientOptions(options)
            .build();
        RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(proxy.host(), proxy.port());
        return started(new LettuceConnectionFactory(server, client) {

            @Override
            protected AbstractRedisClient createClient() {
                RedisURI uri = RedisURI.Builder.redis(server.getHostName(), server.getPort())
                    .withTimeout(commandTimeout)
                    .withLibraryName("")
                    .withLibraryVersion("")
                    .build();
                RedisClient redisClient = RedisClient.create(uri);
                redisClient.setOptions(options);
                return redisClient;
            }
        });
    }

    RedisLockService service(StringRedisTemplate template, UnaryOperator<RedisLockServiceBuilder> settings) {
        // Test servers are fresh processes: no restart grace unless a test sets one
        RedisLockService service = settings.apply(RedisLockService.builder(template).restartGrace(Duration.ZERO))
            .build();
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
