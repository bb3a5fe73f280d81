package dev.distlock.redis.script;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Lettuce connection lock calls are sent on: the factory's shared native connection, kept between calls while it
 * is open (a reset factory opens another), or, when the factory shares none, a dedicated connection per call; and
 * what keeps the service's scripts loaded on it ({@link ScriptReload}: one, or on a Redis Cluster one per node, each
 * node's connection recovering from NOSCRIPT on its own).
 */
final class ScriptConnection {

    private final RedisConnectionFactory connectionFactory;

    /** Whether the factory hands out one shared native connection. */
    private final boolean shared;

    /** The shared connection's commands, kept between calls; null until first use. */
    private volatile @Nullable Shared sharedCommands;

    private final ScriptReload.Settings settings;

    /** Recovers the calls of a standalone server, and loads the set on every node of a cluster. */
    private final ScriptReload reload;

    private final Map<String, ScriptReload> nodeReloads = new ConcurrentHashMap<>();

    ScriptConnection(RedisConnectionFactory connectionFactory, boolean shared, ScriptReload.Settings settings) {
        this.connectionFactory = connectionFactory;
        this.shared = shared;
        this.settings = settings;
        this.reload = new ScriptReload(settings, null);
    }

    /**
     * Loads the service's scripts ({@code SCRIPT LOAD}; on a Redis Cluster on every node), waiting at most the
     * client's timeout and a second: the failure (Redis unreachable, a user not granted {@code SCRIPT LOAD}), or null.
     * A script not loaded is loaded by the first call that meets NOSCRIPT.
     */
    @Nullable Throwable load() {
        Target target = null;
        try {
            target = target();
            Throwable failure = this.reload.load(target.commands())
                .get(this.settings.loadMillis() + 1000, TimeUnit.MILLISECONDS);
            if (failure != null && target.commands() instanceof BaseRedisAsyncCommands<?, ?> base) {
                // a proxy that does not know SCRIPT LOAD may close the connection: the first lock call waits for the
                // client to connect again, not this PING's answer
                base.ping().toCompletableFuture().handle((pong, unused) -> pong)
                    .get(this.settings.loadMillis() + 1000, TimeUnit.MILLISECONDS);
            }
            return failure;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return ex;
        }
        catch (ExecutionException | TimeoutException | RuntimeException ex) {
            return ex;
        }
        finally {
            if (target != null && target.dedicated() != null) {
                target.dedicated().close();
            }
        }
    }

    /** What sends a call to this key: on a Redis Cluster, that of the slot's master in the client's view. */
    ScriptReload reloadFor(RedisScriptingAsyncCommands<byte[], byte[]> commands, byte[] key) {
        if (!(commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)) {
            return this.reload;
        }
        RedisClusterNode master = cluster.getStatefulConnection().getPartitions()
            .getMasterBySlot(SlotHash.getSlot(key));
        return (master == null) ? this.reload : this.nodeReloads.computeIfAbsent(master.getNodeId(),
                node -> new ScriptReload(this.settings, node));
    }

    /** The shared connection's commands, or a dedicated connection's ({@code dedicated}: to close when done). */
    Target target() {
        Shared kept = this.sharedCommands;
        if (kept != null && kept.connection().isOpen()) {
            return new Target(kept.commands(), null);
        }
        RedisConnection connection = this.connectionFactory.getConnection();
        RedisScriptingAsyncCommands<byte[], byte[]> commands = scripting(connection);
        StatefulConnection<?, ?> stateful = (commands instanceof RedisAsyncCommands<?, ?> single)
                ? single.getStatefulConnection()
                : (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
                        ? cluster.getStatefulConnection() : null;
        if (this.shared && stateful != null) {
            // the factory's one connection: kept while open, not closed here
            this.sharedCommands = new Shared(commands, stateful);
            connection.close();
            return new Target(commands, null);
        }
        return new Target(commands, connection);
    }

    /** Where a call goes: the commands, and the dedicated connection to close once answered (null: shared). */
    record Target(RedisScriptingAsyncCommands<byte[], byte[]> commands, @Nullable RedisConnection dedicated) {
    }

    private record Shared(RedisScriptingAsyncCommands<byte[], byte[]> commands, StatefulConnection<?, ?> connection) {
    }

    @SuppressWarnings("unchecked")
    private static RedisScriptingAsyncCommands<byte[], byte[]> scripting(RedisConnection connection) {
        Object nativeConnection = connection.getNativeConnection();
        if (!(nativeConnection instanceof RedisScriptingAsyncCommands<?, ?> commands)) {
            connection.close();
            throw new IllegalStateException("Non-blocking lock calls need a Lettuce connection factory, but the "
                    + "connection is " + nativeConnection.getClass().getName());
        }
        return (RedisScriptingAsyncCommands<byte[], byte[]>) commands;
    }
}
