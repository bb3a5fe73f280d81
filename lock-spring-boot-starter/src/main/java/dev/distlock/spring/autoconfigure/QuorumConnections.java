package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.spring.autoconfigure.QuorumProperties.Address;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * The connections of quorum mode: one Lettuce connection factory per master, sharing one set of client threads, each
 * with the node timeout as its connect and command timeout, and refusing commands at once while its master is
 * disconnected, so that a master that is down costs an attempt nothing. Not Spring beans, so that they close only
 * after the lock service, in {@link #close()}.
 */
final class QuorumConnections implements AutoCloseable {

    private final ClientResources resources = DefaultClientResources.create();

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    QuorumConnections(QuorumProperties properties) {
        Duration timeout = properties.getNodeTimeout();
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
            .clientResources(this.resources)
            .commandTimeout(timeout)
            .shutdownTimeout(Duration.ZERO)
            .clientOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build())
            .build();
        try {
            for (Address address : properties.addresses()) {
                RedisStandaloneConfiguration master = new RedisStandaloneConfiguration(address.host(),
                        address.port());
                if (properties.getUsername() != null) {
                    master.setUsername(properties.getUsername());
                }
                if (properties.getPassword() != null) {
                    master.setPassword(RedisPassword.of(properties.getPassword()));
                }
                LettuceConnectionFactory factory = new LettuceConnectionFactory(master, client);
                this.factories.add(factory);
                factory.afterPropertiesSet();
                factory.start();
            }
        }
        catch (RuntimeException ex) {
            close();
            throw ex;
        }
    }

    /** One template per master, in the order of {@code distlock.quorum.nodes}. */
    List<StringRedisTemplate> templates() {
        return this.factories.stream().map(StringRedisTemplate::new).toList();
    }

    /** Closes every connection, then the client threads. */
    @Override
    public void close() {
        this.factories.forEach(LettuceConnectionFactory::destroy);
        this.resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
