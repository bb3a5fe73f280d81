package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Loads a service's script set on Lettuce's connection with {@code SCRIPT LOAD} (which Redis 8 and Valkey never evict,
 * unlike scripts only {@code EVAL} loaded) and checks with one {@code SCRIPT EXISTS} that all of it is there: when the
 * service starts, and in a {@link ScriptPipeline}'s recovery from NOSCRIPT.
 */
final class ScriptSetLoad {

    /** Loads of the set a recovery tries while Redis loses part of it as it loads (a flush in between). */
    static final int MOST_ROUNDS = 10;

    private final Supplier<List<RedisScript<?>>> scripts;

    private final boolean loads;

    private final long loadMillis;

    /**
     * @param scripts the scripts to load: the variant of each that the service runs
     * @param loads whether to send SCRIPT LOAD (not behind a sharding proxy, which does not pass it on)
     * @param loadMillis how long to wait for each load of the set
     */
    ScriptSetLoad(Supplier<List<RedisScript<?>>> scripts, boolean loads, long loadMillis) {
        this.scripts = scripts;
        this.loads = loads;
        this.loadMillis = loadMillis;
    }

    /**
     * Loads the set on {@code commands} (on a Redis Cluster on every node), waiting at most the client's timeout and
     * a second: the failure (Redis unreachable, a user not granted {@code SCRIPT LOAD}), or null. A script not
     * loaded is loaded by the first call that meets NOSCRIPT.
     */
    @Nullable Throwable loadNow(RedisScriptingAsyncCommands<byte[], byte[]> commands) {
        try {
            Throwable failure = load(commands, null).get(this.loadMillis + 1000, TimeUnit.MILLISECONDS);
            if (failure != null && commands instanceof BaseRedisAsyncCommands<?, ?> base) {
                // a proxy that does not know SCRIPT LOAD may close the connection: the first lock call waits for the
                // client to connect again, not this PING's answer
                base.ping().toCompletableFuture().handle((pong, unused) -> pong)
                    .get(this.loadMillis + 1000, TimeUnit.MILLISECONDS);
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
    }

    /**
     * Loads the set and checks with one {@code SCRIPT EXISTS} that all of it is there, again if not (at most
     * {@link #MOST_ROUNDS} times): on the node {@code nodeId} of a Redis Cluster, on every node when it is null, else
     * on {@code commands}. Completes with the last failure, or null once the set is there; never exceptionally.
     */
    @SuppressWarnings("unchecked")
    CompletableFuture<Throwable> load(RedisScriptingAsyncCommands<byte[], byte[]> commands,
            @Nullable String nodeId) {
        if (!this.loads) {
            return CompletableFuture.completedFuture(null);
        }
        if (!(commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)) {
            return load(CompletableFuture.completedFuture(commands), MOST_ROUNDS);
        }
        StatefulRedisClusterConnection<byte[], byte[]> connection =
                (StatefulRedisClusterConnection<byte[], byte[]>) cluster.getStatefulConnection();
        List<CompletableFuture<Throwable>> nodes = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (nodeId == null || nodeId.equals(node.getNodeId())) {
                nodes.add(load(connection.getConnectionAsync(node.getNodeId())
                    .thenApply(StatefulRedisConnection::async), MOST_ROUNDS));
            }
        }
        return CompletableFuture.allOf(nodes.toArray(CompletableFuture[]::new)).thenApply(unused -> nodes.stream()
            .map(CompletableFuture::join).filter(Objects::nonNull).findFirst().orElse(null));
    }

    private CompletableFuture<Throwable> load(
            CompletableFuture<? extends RedisScriptingAsyncCommands<byte[], byte[]>> node, int rounds) {
        List<RedisScript<?>> set = this.scripts.get();
        String[] shas = set.stream().map(RedisScript::getSha1).toArray(String[]::new);
        return node.thenCompose(commands -> {
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (RedisScript<?> script : set) {
                sent.add(commands.scriptLoad(script.getScriptAsString().getBytes(StandardCharsets.UTF_8))
                    .toCompletableFuture());
            }
            CompletableFuture<List<Boolean>> exists = commands.scriptExists(shas).toCompletableFuture();
            sent.add(exists);
            // done at the first failure: the commands still waiting are cancelled, so that Lettuce does not send them
            // again after a reconnect (a proxy that does not know SCRIPT LOAD closes the connection)
            CompletableFuture<Void> all = new CompletableFuture<>();
            AtomicInteger left = new AtomicInteger(sent.size());
            sent.forEach(command -> command.whenComplete((unused, failure) -> {
                if (failure != null) {
                    all.completeExceptionally(failure);
                }
                else if (left.decrementAndGet() == 0) {
                    all.complete(null);
                }
            }));
            all.whenComplete((unused, failure) -> sent.forEach(command -> command.cancel(false)));
            return all.thenCompose(unused -> exists).thenAccept(found -> {
                if (found.contains(Boolean.FALSE)) {
                    throw new IllegalStateException("Redis lost part of the lock scripts as they loaded");
                }
            }).orTimeout(Math.max(1, this.loadMillis), TimeUnit.MILLISECONDS)
                .whenComplete((unused, failure) -> all.completeExceptionally(new CancellationException()));
        })
            .orTimeout(Math.max(1, this.loadMillis), TimeUnit.MILLISECONDS)
            .handle((unused, failure) -> (failure != null) ? unwrap(failure) : null)
            .thenCompose(failure -> (failure instanceof IllegalStateException && rounds > 1) ? load(node, rounds - 1)
                    : CompletableFuture.completedFuture(failure));
    }
}
