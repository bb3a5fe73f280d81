package dev.distlock.bench.clients;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.distlock.AsyncLockService;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;

/**
 * One distlock client (a {@link RedisLockService} built as {@link DistlockClient} builds it, non-blocking calls) on
 * one Redis server or one Redis Cluster, taking locks of any {@link LockType}: {@code acquire} with the type's mode,
 * or {@code acquireAll} of its keys, then {@code releaseAsync()}. Every acquisition is its own owner.
 */
public final class DistlockTypedClients implements AutoCloseable {

    private final LettuceConnection connection;

    private final RedisLockService locks;

    private final AsyncLockService async;

    private DistlockTypedClients(LettuceConnection connection, ClientSettings settings) {
        this.connection = connection;
        this.locks = DistlockClient.service(connection, settings);
        this.async = this.locks.async();
    }

    /** A client of the single server in {@code settings}. */
    public static DistlockTypedClients standalone(ClientSettings settings) {
        return new DistlockTypedClients(new LettuceConnection(settings.port()), settings);
    }

    /** A client of the Redis Cluster with these nodes ("127.0.0.1:port"); the port in {@code settings} is unused. */
    public static DistlockTypedClients cluster(List<String> nodes, ClientSettings settings) {
        return new DistlockTypedClients(new LettuceConnection(nodes), settings);
    }

    /** Lock cycles of {@code type} through this client: key {@code k} locks {@code k} or {@code k:1} to {@code k:n}. */
    public AsyncLockClient of(LockType type) {
        LockOptions options = LockOptions.defaults().withMode(type.mode());
        return new AsyncLockClient() {

            @Override
            public CompletionStage<Held> acquire(String key, int owner) {
                if (type.keys() == 1) {
                    return DistlockTypedClients.this.async.acquire(key, options)
                        .thenApply(handle -> handle::releaseAsync);
                }
                List<String> keys = new ArrayList<>(type.keys());
                for (int i = 1; i <= type.keys(); i++) {
                    keys.add(key + ":" + i);
                }
                return DistlockTypedClients.this.async.acquireAll(keys, options)
                    .thenApply(handle -> handle::releaseAsync);
            }

            @Override
            public void close() {
                // the shared service closes with DistlockTypedClients
            }
        };
    }

    @Override
    public void close() {
        this.locks.close();
        this.connection.close();
    }
}
