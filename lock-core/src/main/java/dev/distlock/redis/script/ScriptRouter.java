package dev.distlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Which way each of a service's lock calls goes: the variant of its script the ACL guard selects, on the Lettuce
 * connection ({@link LettuceScripts}), through the template on another connection factory, or on a Redis Cluster with
 * replica acknowledgements on the slot's master ({@link AcknowledgedClusterScripts}); and the script set loaded with
 * {@code SCRIPT LOAD} when the service starts, on the way its calls take.
 */
public final class ScriptRouter {

    private static final Log logger = LogFactory.getLog(ScriptRouter.class);

    private final StringRedisTemplate redis;

    private final AclGuard aclGuard;

    private final LettuceScripts lettuce;

    private final ScriptFailures failures;

    /** On a Redis Cluster with replica acknowledgements: runs grants and renewals, each with its WAIT; else null. */
    private final @Nullable AcknowledgedClusterScripts acknowledged;

    /** Whether to load the scripts with SCRIPT LOAD (see {@link #loadScripts()}). */
    private final boolean loads;

    ScriptRouter(StringRedisTemplate redis, AclGuard aclGuard, @Nullable AcknowledgedClusterScripts acknowledged,
            @Nullable Duration callTimeout, boolean loads) {
        this.redis = redis;
        this.aclGuard = aclGuard;
        this.acknowledged = acknowledged;
        this.loads = loads;
        this.failures = new ScriptFailures(aclGuard::noteFailure);
        this.lettuce = new LettuceScripts(redis.getRequiredConnectionFactory(), this.failures, callTimeout,
                this::scriptSet, loads);
    }

    /** The service's script set: of each script, the variant it runs (with or without the ACL guard). */
    List<RedisScript<?>> scriptSet() {
        return Scripts.all().stream().<RedisScript<?>>map(layout -> this.aclGuard.select(layout.script())).toList();
    }

    /**
     * Loads the service's script set with {@code SCRIPT LOAD} (on a Redis Cluster, on every node), so that a server
     * that evicts scripts {@code EVAL} loaded (Redis 8, Valkey) keeps them. A failure (Redis unreachable, a user not
     * granted {@code SCRIPT LOAD}) is logged: each script then loads on the first call that meets NOSCRIPT.
     */
    void loadScripts() {
        if (!this.loads) {
            return;
        }
        Throwable failure;
        if (this.lettuce.runsBlockingCalls()) {
            failure = this.lettuce.load();
        }
        else {
            try {
                this.redis.execute((RedisCallback<Object>) connection -> {
                    scriptSet().forEach(script -> connection.scriptingCommands()
                        .scriptLoad(script.getScriptAsString().getBytes(StandardCharsets.UTF_8)));
                    return null;
                });
                failure = null;
            }
            catch (RuntimeException ex) {
                failure = ex;
            }
        }
        if (failure != null) {
            logger.info("Could not load the lock scripts with SCRIPT LOAD (" + failure + "); each loads with EVAL "
                    + "when first called, which Redis 8 and Valkey may evict again (it then loads again)");
        }
    }

    /**
     * Decides, from the Redis user's ACL, whether the scripts run their ACL guard (see {@link AclGuard}): off for a
     * user granted every command, key and channel, else on. Runs {@code ACL WHOAMI} and {@code ACL GETUSER}.
     */
    void decideAclGuard() {
        boolean was = this.aclGuard.isOn();
        this.aclGuard.decide(this.redis);
        if (this.aclGuard.isOn() != was) {
            loadScripts(); // the variant the service runs from now on
        }
    }

    /** Sends a script that answers an integer without waiting; the future completes on a Redis client thread. */
    CompletableFuture<Long> runAsync(RedisScript<Long> script, List<String> keys, Object[] args) {
        return this.lettuce.run(this.aclGuard.select(script), keys, args);
    }

    /**
     * Whether renewal batches can be sent without waiting ({@link #runBatchAsync}): on the Lettuce factory's shared
     * connection, not on a Redis Cluster with replica acknowledgements (there each batch runs with its WAIT).
     */
    boolean sendsBatches() {
        return this.acknowledged == null && this.lettuce.sendsBatches();
    }

    /** Sends a renewal batch without waiting, the variant the ACL guard selects; see LettuceScripts#runBatch. */
    CompletableFuture<List<Object>> runBatchAsync(RedisScript<?> script, List<String> keys, Object[] args) {
        return this.lettuce.runBatch(this.aclGuard.select(script), keys, args);
    }

    /** Sends a grant script without waiting, then {@code WAIT} for {@code replicas} on the connection that ran it. */
    CompletableFuture<AcknowledgedReply> runAcknowledgedAsync(RedisScript<Long> script, List<String> keys,
            Object[] args, int replicas, long timeoutMillis) {
        RedisScript<Long> sent = this.aclGuard.select(script);
        if (this.acknowledged == null) {
            return this.lettuce.runAcknowledged(sent, keys, args, replicas, timeoutMillis); // tells the guard
        }
        CompletableFuture<AcknowledgedReply> reply = new CompletableFuture<>();
        this.acknowledged.grantAsync(sent, keys, args).whenComplete((acknowledged, failure) -> {
            if (failure != null) {
                reply.completeExceptionally(this.failures.failure(failure));
            }
            else {
                reply.complete(acknowledged);
            }
        });
        return reply;
    }

    /** Runs a script that answers an integer on the calling thread and waits for its reply. */
    long run(RedisScript<Long> script, List<String> keys, Object[] args) {
        boolean acknowledgedGrant = this.acknowledged != null && Scripts.grants(script);
        RedisScript<Long> sent = this.aclGuard.select(script);
        if (!acknowledgedGrant && this.lettuce.runsBlockingCalls()) {
            return this.lettuce.runBlocking(sent, keys, args); // tells the guard of a failure
        }
        Long reply;
        try {
            reply = acknowledgedGrant ? this.acknowledged.grant(sent, keys, args)
                    : this.redis.execute(sent, keys, args);
        }
        catch (RuntimeException ex) {
            this.aclGuard.noteFailure(ex);
            throw ex;
        }
        if (reply == null) {
            // Only inside a pipeline or transaction, which a lock cannot take part in.
            throw new IllegalStateException("Lock scripts cannot run in a Redis pipeline or transaction");
        }
        return reply;
    }

    /** See LockScripts#waitForReplicas. */
    long waitForReplicas(int replicas, long timeoutMillis) {
        if (this.acknowledged != null) {
            return this.acknowledged.acknowledged();
        }
        Long acknowledged = this.redis.execute((RedisCallback<Long>) connection -> {
            if (!(connection.getNativeConnection() instanceof BaseRedisAsyncCommands<?, ?> commands)) {
                throw new IllegalStateException("Replica acknowledgements need a Lettuce connection");
            }
            // Redis answers by the WAIT timeout; the extra second only bounds a connection that stopped answering.
            return LettuceFutures.awaitOrCancel(commands.waitForReplication(replicas, timeoutMillis),
                    timeoutMillis + 1000, TimeUnit.MILLISECONDS);
        });
        return (acknowledged != null) ? acknowledged : 0;
    }
}
