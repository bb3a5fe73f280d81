package dev.distlock.redis.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.test.RedisNode;

/**
 * Independent clients of a set of Redis masters, each with its own connections, as two services in quorum mode would
 * have: a command timeout of {@link #NODE_TIMEOUT}, and commands refused at once while a master is disconnected.
 * Closes everything it made.
 */
final class QuorumClients implements AutoCloseable {

    static final Duration NODE_TIMEOUT = Duration.ofMillis(200);

    /** The shortest watchdog lease the node timeout allows; lease-long waits in tests stay short. */
    static final Duration SHORT_LEASE = NODE_TIMEOUT.multipliedBy(10);

    private final List<RedisNode> masters;

    private final List<AutoCloseable> resources = new ArrayList<>();

    /** The client threads of every connection made here, shared as the starter shares them. */
    private final ClientResources clientResources = DefaultClientResources.create();

    QuorumClients(List<RedisNode> masters) {
        this.masters = masters;
    }

    /** Makes every master usable and empty again: restarted if stopped or killed, resumed if paused, flushed. */
    static void reset(List<RedisNode> masters) {
        for (RedisNode master : masters) {
            if (master.isRunning()) {
                master.resume();
                master.flushAll();
            }
            else {
                master.restart();
            }
        }
    }

    List<StringRedisTemplate> templates() {
        List<StringRedisTemplate> templates = new ArrayList<>();
        for (RedisNode master : this.masters) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration(master.host(), master.port()),
                    LettuceClientConfiguration.builder()
                        .clientResources(this.clientResources)
                        .shutdownTimeout(Duration.ZERO)
                        .commandTimeout(NODE_TIMEOUT)
                        .clientOptions(ClientOptions.builder()
                            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                            .socketOptions(SocketOptions.builder().connectTimeout(NODE_TIMEOUT).build())
                            .build())
                        .build());
            factory.afterPropertiesSet();
            factory.start();
            this.resources.add(factory::destroy);
            templates.add(new StringRedisTemplate(factory));
        }
        return templates;
    }

    /** A quorum lock service on connections of its own, connected to every master that is up. */
    QuorumLockService service() {
        return service(builder -> builder);
    }

    QuorumLockService service(UnaryOperator<QuorumLockServiceBuilder> settings) {
        QuorumLockService service = settings
            .apply(QuorumLockService.builder(templates()).nodeTimeout(NODE_TIMEOUT).restartGrace(Duration.ZERO))
            .build();
        this.resources.add(service);
        service.verifyQuorumReachable(); // connects, as the starter does at startup
        return service;
    }

    @Override
    public void close() throws Exception {
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            this.resources.get(i).close();
        }
        this.resources.clear();
        this.clientResources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
