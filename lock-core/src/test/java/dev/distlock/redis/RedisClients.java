package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.test.RedisNode;

/**
 * Independent clients of one Redis server, each with its own connection factory, as two services would have. Closes
 * everything it made.
 */
public final class RedisClients implements AutoCloseable {

    private final List<AutoCloseable> resources = new ArrayList<>();

    private final RedisNode node;

    public RedisClients(RedisNode node) {
        this.node = node;
    }

    public StringRedisTemplate template() {
        return template(this.node.port(), Duration.ofSeconds(5));
    }

    /** A client of {@code user} (ACL) authenticated with {@code password}. */
    public StringRedisTemplate template(String user, String password) {
        RedisStandaloneConfiguration address = new RedisStandaloneConfiguration("127.0.0.1", this.node.port());
        address.setUsername(user);
        address.setPassword(password);
        return template(address, Duration.ofSeconds(5));
    }

    public StringRedisTemplate template(int port, Duration commandTimeout) {
        return template(new RedisStandaloneConfiguration("127.0.0.1", port), commandTimeout);
    }

    private StringRedisTemplate template(RedisStandaloneConfiguration address, Duration commandTimeout) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(address,
                LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
        factory.afterPropertiesSet();
        factory.start();
        this.resources.add(factory::destroy);
        return new StringRedisTemplate(factory);
    }

    /** A lock service on a client of its own. */
    public RedisLockService service() {
        return service(builder -> builder);
    }

    public RedisLockService service(UnaryOperator<RedisLockServiceBuilder> settings) {
        return service(template(), settings);
    }

    public RedisLockService service(StringRedisTemplate template, UnaryOperator<RedisLockServiceBuilder> settings) {
        // Test servers are fresh processes: no restart grace unless a test sets one
        RedisLockService service = settings.apply(RedisLockService.builder(template).restartGrace(Duration.ZERO))
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

    /** The keys on {@code node} but the services' instance records ({@code <prefix>:instance:<id>}). */
    public static java.util.List<String> lockKeys(RedisNode node) {
        String keys = node.call("KEYS", "*");
        return java.util.Arrays.stream(keys.split("\n")).filter(key -> !key.isEmpty() && !key.contains(":instance:"))
            .toList();
    }
}
