package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;
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
 * disconnected, so that a master that is down costs an attempt nothing; over TLS where {@link QuorumTls} says so.
 * Not Spring beans, so that they close only
 * after the lock service, in {@link #close()}.
 */
final class QuorumConnections implements AutoCloseable {

    private final ClientResources resources = DefaultClientResources.create();

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final String tlsProperty;

    QuorumConnections(QuorumProperties properties, QuorumTls tls) {
        this.tlsProperty = tls.property();
        // The quorum builder refuses a node timeout under 1 ms, naming the property, before anything connects;
        // Lettuce would refuse it here first, naming none.
        Duration timeout = (properties.getNodeTimeout().compareTo(Duration.ofMillis(1)) < 0) ? Duration.ofMillis(1)
                : properties.getNodeTimeout();
        LettuceClientConfiguration plain = client(timeout, null);
        LettuceClientConfiguration secure = client(timeout, tls);
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
                LettuceConnectionFactory factory = new LettuceConnectionFactory(master,
                        (address.tls() || tls.allMasters()) ? secure : plain);
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

    /**
     * The client settings of every master; with {@code tls}, Lettuce completes the TLS handshake (verifying the
     * server's certificate and host name) before it sends HELLO with the credentials.
     */
    private LettuceClientConfiguration client(Duration timeout, @Nullable QuorumTls tls) {
        ClientOptions.Builder options = ClientOptions.builder()
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
        if (tls != null) {
            builder.useSsl();
            SslBundle bundle = tls.bundle();
            if (bundle != null) {
                io.lettuce.core.SslOptions.Builder ssl = io.lettuce.core.SslOptions.builder()
                    .keyManager(bundle.getManagers().getKeyManagerFactory())
                    .trustManager(bundle.getManagers().getTrustManagerFactory());
                SslOptions bundleOptions = bundle.getOptions();
                if (bundleOptions.getCiphers() != null) {
                    ssl.cipherSuites(bundleOptions.getCiphers());
                }
                if (bundleOptions.getEnabledProtocols() != null) {
                    ssl.protocols(bundleOptions.getEnabledProtocols());
                }
                options.sslOptions(ssl.build());
            }
        }
        return builder.clientResources(this.resources)
            .commandTimeout(timeout)
            .shutdownTimeout(Duration.ZERO)
            .clientOptions(options.build())
            .build();
    }

    /** One template per master, in the order of {@code distlock.quorum.nodes}. */
    List<StringRedisTemplate> templates() {
        return this.factories.stream().map(StringRedisTemplate::new).toList();
    }

    /** The property a TLS failure names: the SSL bundle of the masters. */
    String tlsProperty() {
        return this.tlsProperty;
    }

    /** Closes every connection, then the client threads. */
    @Override
    public void close() {
        this.factories.forEach(LettuceConnectionFactory::destroy);
        this.resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
