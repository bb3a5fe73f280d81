package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.protocol.ConnectionIntent;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.ClusterStateFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Grant and renewal scripts whose writes replicas must acknowledge, on a Redis Cluster. {@code WAIT} counts the writes
 * of the connection it runs on, and Lettuce's cluster connection sends a keyless command such as {@code WAIT} to any
 * node: so the script runs on the connection of its slot's master (Lettuce's own per-node connection, the one its
 * routing uses), and {@code WAIT} follows on that same connection. A master that was failed over while it was paused
 * still grants until it learns of its demotion; its former replica, now the new master, no longer acknowledges, so
 * that grant counts as not replicated and is undone.
 *
 * <p>The blocking call waits for both replies; the acknowledgement is kept for the calling thread until
 * {@link #acknowledged()} reads it. The non-blocking one ({@link #grantAsync}) chains them with no thread waiting and
 * completes with both. A {@code MOVED} reply is followed, as Lettuce does, and the script runs again on the
 * master it names; an {@code ASK} reply (a slot being migrated) fails the call.
 */
public final class AcknowledgedClusterScripts {

    /** No acknowledgement waited for on this thread since it was last read. */
    private static final long NONE = -1;

    /** Redirects followed per call: one for a failover the client has not seen, one more for a second. */
    private static final int MOST_REDIRECTS = 2;

    private static final LettuceExceptionConverter exceptions = new LettuceExceptionConverter();

    private final StringRedisTemplate redis;

    private final int replicas;

    private final long timeoutMillis;

    /** Per thread: the acknowledgement of its last call, or {@link #NONE}. */
    private final ThreadLocal<long[]> lastAcknowledged = ThreadLocal.withInitial(() -> new long[] { NONE });

    /**
     * @param redis the service's template, on a Lettuce cluster connection factory
     * @param replicas how many replicas must acknowledge
     * @param timeout how long {@code WAIT} waits for them
     */
    public AcknowledgedClusterScripts(StringRedisTemplate redis, int replicas, Duration timeout) {
        this.redis = redis;
        this.replicas = replicas;
        this.timeoutMillis = timeout.toMillis();
    }

    /** Runs a grant script on its slot's master and, when it granted ({@code > 0}), {@code WAIT} there. */
    long grant(RedisScript<Long> script, List<String> keys, Object[] args) {
        Long reply = run(script, ScriptOutputType.INTEGER, keys, args, true);
        if (reply == null) {
            throw new IllegalStateException("A lock script answered nothing");
        }
        return reply;
    }

    /**
     * {@link #grant} without blocking: the script on its slot's master's connection, then, when it granted, {@code
     * WAIT} on that connection; the future completes on a Redis client thread. A failure is Lettuce's or Spring's,
     * untranslated (the ScriptRouter reports it).
     */
    CompletableFuture<AcknowledgedReply> grantAsync(RedisScript<Long> script, List<String> keys,
            Object[] args) {
        byte[][] encodedKeys = ScriptPipeline.encode(keys.toArray());
        byte[][] encodedArgs = ScriptPipeline.encode(args);
        StatefulRedisClusterConnection<byte[], byte[]> cluster;
        RedisURI uri;
        try {
            cluster = this.redis.execute((RedisCallback<StatefulRedisClusterConnection<byte[], byte[]>>)
                    AcknowledgedClusterScripts::cluster); // the factory's shared one, which stays open
            uri = masterOf(cluster, encodedKeys[0], keys.get(0)).getUri();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
        return grantAsync(cluster, uri.getHost(), uri.getPort(), script, encodedKeys, encodedArgs, 0);
    }

    private CompletableFuture<AcknowledgedReply> grantAsync(
            StatefulRedisClusterConnection<byte[], byte[]> cluster, String host, int port, RedisScript<Long> script, byte[][] keys, byte[][] args, int redirects) {
        return cluster.getConnectionAsync(host, port, ConnectionIntent.WRITE).thenCompose(node -> {
            CompletableFuture<Long> reply = node.async().<Long>evalsha(script.getSha1(), ScriptOutputType.INTEGER,
                    keys, args).toCompletableFuture()
                .exceptionallyCompose(failure -> (unwrap(failure) instanceof RedisNoScriptException)
                        ? node.async().<Long>eval(script.getScriptAsString(), ScriptOutputType.INTEGER, keys, args)
                            .toCompletableFuture()
                        : CompletableFuture.failedFuture(unwrap(failure)));
            return reply.handle((granted, failure) -> {
                if (failure != null) {
                    String movedTo = (unwrap(failure) instanceof RedisCommandExecutionException ex) ? movedTo(ex)
                            : null;
                    if (movedTo == null || redirects >= MOST_REDIRECTS) {
                        return CompletableFuture.<AcknowledgedReply>failedFuture(unwrap(failure));
                    }
                    int colon = movedTo.lastIndexOf(':');
                    return grantAsync(cluster, movedTo.substring(0, colon),
                            Integer.parseInt(movedTo.substring(colon + 1)), script, keys, args, redirects + 1);
                }
                if (granted == null || granted <= 0) {
                    return CompletableFuture.completedFuture(new AcknowledgedReply(
                            (granted != null) ? granted : 0, 0));
                }
                return waitAsync(node.async(), this.replicas, this.timeoutMillis)
                    .thenApply(acknowledged -> new AcknowledgedReply(granted, acknowledged));
            }).thenCompose(next -> next);
        });
    }

    /**
     * {@code WAIT} on {@code target} (a grant's connection, on a cluster or not): -1 when it failed or did not answer
     * within its timeout and a second.
     */
    static CompletableFuture<Long> waitAsync(Object target, int replicas, long timeoutMillis) {
        if (!(target instanceof BaseRedisAsyncCommands<?, ?> commands)) {
            return CompletableFuture.completedFuture(-1L);
        }
        // Redis answers by the WAIT timeout; the extra second only bounds a connection that stopped answering.
        return commands.waitForReplication(replicas, timeoutMillis).toCompletableFuture()
            .orTimeout(timeoutMillis + 1000, TimeUnit.MILLISECONDS)
            .handle((acknowledged, failure) -> (failure != null || acknowledged == null) ? -1L : acknowledged);
    }

    /** The master of the key's slot in the client's view of the cluster. */
    private static RedisClusterNode masterOf(StatefulRedisClusterConnection<byte[], byte[]> cluster, byte[] key,
            String keyText) {
        int slot = SlotHash.getSlot(key);
        RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
        if (master == null) {
            throw new ClusterStateFailureException("No master serves slot " + slot + " of lock key " + keyText
                    + " in the client's view of the cluster");
        }
        return master;
    }

    /** Runs a renewal script on its slot's master, then {@code WAIT} there. */
    List<?> renew(RedisScript<?> script, List<String> keys, Object[] args) {
        List<?> replies = run(script, ScriptOutputType.MULTI, keys, args, false);
        if (replies == null) {
            throw new IllegalStateException("A lock script answered nothing");
        }
        return replies;
    }

    /**
     * How many replicas acknowledged the calling thread's last grant or renewal, or -1 when Redis did not answer
     * {@code WAIT} or the thread ran none since it last asked.
     */
    long acknowledged() {
        long[] last = this.lastAcknowledged.get();
        long acknowledged = last[0];
        last[0] = NONE;
        return acknowledged;
    }

    private <T> @Nullable T run(RedisScript<?> script, ScriptOutputType type, List<String> keys, Object[] args,
            boolean onlyIfGranted) {
        long[] last = this.lastAcknowledged.get();
        last[0] = NONE;
        byte[][] encodedKeys = ScriptPipeline.encode(keys.toArray());
        byte[][] encodedArgs = ScriptPipeline.encode(args);
        return this.redis.execute((RedisCallback<T>) connection -> {
            StatefulRedisClusterConnection<byte[], byte[]> cluster = cluster(connection);
            try {
                RedisURI uri = masterOf(cluster, encodedKeys[0], keys.get(0)).getUri();
                String host = uri.getHost();
                int port = uri.getPort();
                for (int redirects = 0;; redirects++) {
                    StatefulRedisConnection<byte[], byte[]> node = cluster.getConnection(host, port,
                            ConnectionIntent.WRITE);
                    T reply;
                    try {
                        reply = evaluate(node.sync(), script, type, encodedKeys, encodedArgs);
                    }
                    catch (RedisCommandExecutionException ex) {
                        String movedTo = movedTo(ex);
                        if (movedTo == null || redirects >= MOST_REDIRECTS) {
                            throw ex;
                        }
                        int colon = movedTo.lastIndexOf(':');
                        host = movedTo.substring(0, colon);
                        port = Integer.parseInt(movedTo.substring(colon + 1));
                        continue;
                    }
                    if (!onlyIfGranted || (reply instanceof Long granted && granted > 0)) {
                        last[0] = waitForReplicas(node);
                    }
                    return reply;
                }
            }
            catch (DataAccessException ex) {
                throw ex;
            }
            catch (RuntimeException ex) {
                DataAccessException translated = exceptions.convert(ex);
                throw (translated != null) ? translated : new RedisSystemException(ex.getMessage(), ex);
            }
        });
    }

    /** EVALSHA, and EVAL when the node answers NOSCRIPT (it restarted, or has never run the script). */
    private static <T> T evaluate(RedisCommands<byte[], byte[]> node, RedisScript<?> script, ScriptOutputType type,
            byte[][] keys, byte[][] args) {
        try {
            return node.evalsha(script.getSha1(), type, keys, args);
        }
        catch (RedisNoScriptException ex) {
            return node.eval(script.getScriptAsString(), type, keys, args);
        }
    }

    /** {@code WAIT} on the node's connection, after the script: -1 when it did not answer. */
    private long waitForReplicas(StatefulRedisConnection<byte[], byte[]> node) {
        try {
            // Redis answers by the WAIT timeout; the extra second only bounds a connection that stopped answering.
            Long acknowledged = LettuceFutures.awaitOrCancel(
                    node.async().waitForReplication(this.replicas, this.timeoutMillis), this.timeoutMillis + 1000,
                    TimeUnit.MILLISECONDS);
            return (acknowledged != null) ? acknowledged : 0;
        }
        catch (RuntimeException ex) { // a demoted master refuses WAIT, a paused one does not answer
            return -1;
        }
    }

    /** The {@code host:port} a {@code MOVED} error names, or null for any other error. */
    private static @Nullable String movedTo(RedisCommandExecutionException ex) {
        String message = ex.getMessage();
        if (message == null || !message.startsWith("MOVED ")) {
            return null;
        }
        String[] parts = message.trim().split(" ");
        return (parts.length == 3 && parts[2].lastIndexOf(':') > 0) ? parts[2] : null;
    }

    @SuppressWarnings("unchecked")
    private static StatefulRedisClusterConnection<byte[], byte[]> cluster(RedisConnection connection) {
        if (!(connection.getNativeConnection() instanceof RedisAdvancedClusterAsyncCommands<?, ?> commands)) {
            throw new IllegalStateException("Replica acknowledgements on Redis Cluster need Lettuce's cluster "
                    + "connection, but the connection is " + connection.getNativeConnection().getClass().getName());
        }
        return (StatefulRedisClusterConnection<byte[], byte[]>) commands.getStatefulConnection();
    }
}
