package dev.distlock.bench.clients;

import java.time.Duration;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * A plain Lettuce client with one connection to the benchmark's Redis, no Spring: what the non-blocking floors send
 * their commands on, all chains pipelined on it ({@link LettuceConnection} is the template-based clients' set-up).
 */
final class LettuceAsyncConnection implements AutoCloseable {

    private final RedisClient client;

    private final StatefulRedisConnection<String, String> connection;

    final RedisAsyncCommands<String, String> commands;

    LettuceAsyncConnection(int port) {
        this.client = RedisClient.create(RedisURI.builder()
            .withHost("127.0.0.1")
            .withPort(port)
            .withTimeout(Duration.ofSeconds(10))
            .build());
        this.connection = this.client.connect();
        this.commands = this.connection.async();
    }

    /** Loads a script (blocking, at set-up) and returns its SHA-1 for EVALSHA. */
    String scriptLoad(String script) {
        return this.connection.sync().scriptLoad(script);
    }

    @Override
    public void close() {
        this.connection.close();
        this.client.shutdown();
    }
}
