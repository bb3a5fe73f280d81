package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;
import static dev.distlock.redis.script.ScriptPipeline.bounded;
import static dev.distlock.redis.script.ScriptPipeline.encode;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Lock calls through Lettuce's asynchronous API, so that any number are in flight with no thread waiting: on the
 * factory's shared native connection (kept between calls while it is open; a reset factory opens another) through the
 * {@link ScriptPipeline} of its server (on a Redis Cluster, of the key's slot's master in the client's view), which
 * sends EVALSHA and recovers NOSCRIPT in order; on a factory that shares none, on a dedicated connection per call,
 * EVAL at once after NOSCRIPT. Failures reach the caller as {@link ScriptFailures} makes them.
 * <p>
 * Blocking calls run here too ({@link #runBlocking}), waiting as the template waits: the template's path costs a
 * Spring connection wrapper, a JDK proxy and a transaction-resource lookup per call, which the 16-thread benchmark's
 * profile put at about a tenth of the client's CPU per lock cycle.
 * <p>
 * A lock call timeout shorter than the client's command timeout bounds each command sent here: at its end the
 * command completes with a timeout, so that Lettuce does not send it later if it still waits for a reconnect.
 */
final class LettuceScripts {

    private final RedisConnectionFactory connectionFactory;

    private final ScriptFailures failures;

    /** Whether the factory hands out one shared native connection, whose commands can be kept while it is open. */
    private final boolean shared;

    /** Whether the factory is Lettuce's, whose connections this class can use. */
    private final boolean lettuce;

    /** The client's command timeout, which bounds a blocking call's wait as it bounds the template's. */
    private final long timeoutMillis;

    /** The lock call timeout when shorter than the client's, else 0: the client's timeout bounds each command. */
    private final long boundMillis;

    /** The shared connection's commands, kept between calls; null until first use. */
    private volatile @Nullable Shared sharedCommands;

    private final ScriptSetLoad scripts;

    private final ScriptPipeline.PerServer pipelines;

    /**
     * @param scripts the service's scripts, to load at start-up and after NOSCRIPT (the variant of each it runs)
     * @param loads whether to load them with {@code SCRIPT LOAD} (not behind a sharding proxy)
     */
    LettuceScripts(RedisConnectionFactory connectionFactory, ScriptFailures failures, @Nullable Duration callTimeout,
            Supplier<List<RedisScript<?>>> scripts, boolean loads) {
        this.connectionFactory = connectionFactory;
        this.failures = failures;
        LettuceConnectionFactory lettuceFactory = (connectionFactory instanceof LettuceConnectionFactory factory)
                ? factory : null;
        this.lettuce = lettuceFactory != null;
        this.shared = lettuceFactory != null && lettuceFactory.getShareNativeConnection();
        this.timeoutMillis = (lettuceFactory != null) ? lettuceFactory.getTimeout() : 0;
        this.boundMillis = (callTimeout != null && callTimeout.toMillis() < this.timeoutMillis)
                ? callTimeout.toMillis() : 0;
        this.scripts = new ScriptSetLoad(scripts, loads && this.lettuce, this.timeoutMillis);
        this.pipelines = new ScriptPipeline.PerServer(this.scripts, this.boundMillis);
    }

    /** Loads the service's scripts now: see {@link ScriptSetLoad#loadNow}; the failure, or null. */
    @Nullable Throwable load() {
        Target target = null;
        try {
            target = target();
            return this.scripts.loadNow(target.commands());
        }
        catch (RuntimeException ex) {
            return ex;
        }
        finally {
            if (target != null && target.dedicated() != null) {
                target.dedicated().close();
            }
        }
    }

    /** Whether {@link #runBlocking} can run here (a Lettuce factory); else blocking calls need the template. */
    boolean runsBlockingCalls() {
        return this.lettuce;
    }

    /** Whether {@link #runBatch} and {@link #runAcknowledged} can send here: on the factory's shared connection. */
    boolean sendsBatches() {
        return this.shared;
    }

    /** Sends a script; the future completes on a Redis client thread with the reply, or the failure reported. */
    CompletableFuture<Long> run(RedisScript<Long> script, List<String> keys, Object[] args) {
        CompletableFuture<Long> reply = new CompletableFuture<>();
        try {
            send(script, keys, args, reply, true);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(this.failures.reported(ex));
        }
        return reply;
    }

    /**
     * Sends a script answering a list (a renewal batch's) on the shared connection, as {@link #run} sends. The future
     * completes on a Redis client thread with the reply, or the failure reported, at the latest a second after the
     * client's command timeout.
     */
    CompletableFuture<List<Object>> runBatch(RedisScript<?> script, List<String> keys, Object[] args) {
        CompletableFuture<List<Object>> reply = new CompletableFuture<>();
        try {
            Target sendOn = target();
            if (sendOn.dedicated() != null) {
                sendOn.dedicated().close();
                throw new IllegalStateException("Batches are sent on the factory's shared native connection only");
            }
            byte[][] encodedKeys = encode(keys.toArray());
            this.pipelines.of(sendOn.commands(), encodedKeys[0]).send(new ScriptPipeline.Call<List<Object>>(script,
                    ScriptOutputType.MULTI, encodedKeys, encode(args), reply, sendOn.commands(),
                    (value, failure) -> finish(reply, null, value, failure, true)));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(this.failures.reported(ex));
        }
        // bounds a connection that stopped answering; done, the call is not sent again after NOSCRIPT
        return reply.orTimeout(this.timeoutMillis + 1000, TimeUnit.MILLISECONDS);
    }

    /**
     * Sends a grant script and, when it granted ({@code > 0}), {@code WAIT replicas timeout} on the very connection
     * that ran it, once its reply is in: {@code WAIT} counts the writes of its own connection only. The future
     * completes, on a Redis client thread, with the reply and the number of replicas that acknowledged (-1 when
     * {@code WAIT} failed or did not answer, 0 for a refused grant); a failure of the script as {@link #run} reports
     * it. Needs the factory's shared connection (the builder refuses acknowledgements without).
     */
    CompletableFuture<AcknowledgedReply> runAcknowledged(RedisScript<Long> script, List<String> keys,
            Object[] args, int replicas, long timeoutMillis) {
        if (!this.shared) {
            return CompletableFuture.failedFuture(new IllegalStateException("Replica acknowledgements need the "
                    + "Lettuce connection factory's shared native connection"));
        }
        CompletableFuture<Long> reply = new CompletableFuture<>();
        RedisScriptingAsyncCommands<byte[], byte[]> target;
        try {
            target = send(script, keys, args, reply, true);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(this.failures.reported(ex));
        }
        return reply.thenCompose(granted -> (granted <= 0)
                ? CompletableFuture.completedFuture(new AcknowledgedReply(granted, 0))
                : AcknowledgedClusterScripts.waitAsync(target, replicas, timeoutMillis)
                    .thenApply(acknowledged -> new AcknowledgedReply(granted, acknowledged)));
    }

    /**
     * Runs a script and waits for its reply as the template's blocking call waits: at most the client's command
     * timeout (or the shorter lock call timeout), the command left to Lettuce's own timeout after that; a failure
     * reported on the calling thread as the exception the template would throw; an interrupt ends the wait with the
     * flag set again (the command may still run in Redis, as with the template).
     */
    long runBlocking(RedisScript<Long> script, List<String> keys, Object[] args) {
        CompletableFuture<Long> reply = new CompletableFuture<>();
        try {
            send(script, keys, args, reply, false);
            return reply.get(this.timeoutMillis, TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            throw this.failures.thrown(ex.getCause());
        }
        catch (TimeoutException ex) {
            RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("Command timed out after "
                    + this.timeoutMillis + " ms");
            reply.completeExceptionally(timeout); // given up: no NOSCRIPT fallback runs the script after this
            throw this.failures.thrown(timeout);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            RedisCommandInterruptedException interrupted = new RedisCommandInterruptedException(ex);
            reply.completeExceptionally(interrupted);
            throw this.failures.thrown(interrupted);
        }
        catch (RuntimeException ex) {
            throw this.failures.thrown(ex);
        }
    }

    /**
     * Sends EVALSHA (EVAL on NOSCRIPT) and completes {@code reply} with its outcome: a failure reported when {@code
     * report}, else as Lettuce reported it. Throws what getting a connection throws. When {@code reply} is done before
     * the NOSCRIPT answer comes (its caller gave up: a timeout, an interrupt, a withdrawn call), no EVAL follows: the
     * caller treats the outcome as unknown and has already sent what undoes or retries it, which the script loaded
     * and run after it would overtake.
     */
    private RedisScriptingAsyncCommands<byte[], byte[]> send(RedisScript<Long> script, List<String> keys,
            Object[] args, CompletableFuture<Long> reply, boolean report) {
        Target sendOn = target();
        RedisConnection dedicated = sendOn.dedicated();
        RedisScriptingAsyncCommands<byte[], byte[]> commands = sendOn.commands();
        byte[][] encodedKeys = encode(keys.toArray());
        byte[][] encodedArgs = encode(args);
        if (dedicated == null) {
            this.pipelines.of(commands, encodedKeys[0]).send(new ScriptPipeline.Call<>(script, ScriptOutputType.INTEGER,
                    encodedKeys, encodedArgs, reply, commands,
                    (value, failure) -> finish(reply, null, value, failure, report)));
            return commands;
        }
        // a connection of this call's own: nothing else is sent on it before the answer, so EVAL at once keeps order
        bounded(this.boundMillis, commands.<Long>evalsha(script.getSha1(), ScriptOutputType.INTEGER, encodedKeys,
                encodedArgs)).whenComplete((value, failure) -> {
                    if (failure != null && unwrap(failure) instanceof RedisNoScriptException && !reply.isDone()) {
                        bounded(this.boundMillis, commands.<Long>eval(script.getScriptAsString(),
                                ScriptOutputType.INTEGER, encodedKeys, encodedArgs))
                            .whenComplete((loaded, evalFailure) -> finish(reply, dedicated, loaded, evalFailure,
                                    report));
                    }
                    else {
                        finish(reply, dedicated, value, failure, report);
                    }
                });
        return commands;
    }

    private <T> void finish(CompletableFuture<T> reply, @Nullable RedisConnection dedicated, @Nullable T value,
            @Nullable Throwable failure, boolean report) {
        if (dedicated != null) {
            try {
                dedicated.close(); // a dedicated connection goes back once the reply is in
            }
            catch (RuntimeException ignored) {
                // the reply matters, not the close
            }
        }
        this.failures.complete(reply, value, failure, report, this.boundMillis);
    }

    /** The shared connection's commands, or a dedicated connection's ({@code dedicated}: to close when done). */
    private Target target() {
        Shared kept = this.sharedCommands;
        if (kept != null && kept.connection().isOpen()) {
            return kept.target();
        }
        RedisConnection connection = this.connectionFactory.getConnection();
        Object nativeConnection = connection.getNativeConnection();
        if (!(nativeConnection instanceof RedisScriptingAsyncCommands<?, ?> scripting)) {
            connection.close();
            throw new IllegalStateException("Non-blocking lock calls need a Lettuce connection factory, but the "
                    + "connection is " + nativeConnection.getClass().getName());
        }
        @SuppressWarnings("unchecked")
        RedisScriptingAsyncCommands<byte[], byte[]> commands = (RedisScriptingAsyncCommands<byte[], byte[]>) scripting;
        StatefulConnection<?, ?> stateful = (commands instanceof RedisAsyncCommands<?, ?> single)
                ? single.getStatefulConnection()
                : (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
                        ? cluster.getStatefulConnection() : null;
        if (this.shared && stateful != null) {
            // the factory's one connection: kept while open, not closed here
            Shared fresh = new Shared(new Target(commands, null), stateful);
            this.sharedCommands = fresh;
            connection.close();
            return fresh.target();
        }
        return new Target(commands, connection);
    }

    /** Where a call goes: the commands, and the dedicated connection to close once answered (null: shared). */
    private record Target(RedisScriptingAsyncCommands<byte[], byte[]> commands, @Nullable RedisConnection dedicated) {
    }

    private record Shared(Target target, StatefulConnection<?, ?> connection) {
    }
}
