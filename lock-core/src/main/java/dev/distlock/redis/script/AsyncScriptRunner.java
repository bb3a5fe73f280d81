package dev.distlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends integer-answering scripts through Lettuce's asynchronous API on the connection factory's shared connection
 * (kept between calls while it is open), so that any number of calls are in flight on one connection with no thread
 * waiting: EVALSHA, and EVAL when Redis
 * answers NOSCRIPT (after a restart or {@code SCRIPT FLUSH}), as the blocking template does. Failures are translated
 * as Spring Data Redis translates them on the blocking path, so both paths report alike, and each is shown to a
 * listener (the ACL guard's) before the call's future completes with it: no stage per call for that.
 * <p>
 * Blocking calls run here too ({@link #runBlocking}), waiting as the template waits: the template's path costs a
 * Spring connection wrapper, a JDK proxy and a transaction-resource lookup per call, which the 16-thread benchmark's
 * profile put at about a tenth of the client's CPU per lock cycle.
 * <p>
 * A lock call timeout shorter than the client's command timeout bounds each command sent here: at its end the
 * command completes with a timeout, so that Lettuce does not send it later if it still waits for a reconnect.
 */
final class AsyncScriptRunner {

    private static final LettuceExceptionConverter exceptions = new LettuceExceptionConverter();

    private final RedisConnectionFactory connectionFactory;

    /** Told of every failed call, on the thread that completes it, before its future completes. */
    private final Consumer<Throwable> failures;

    /** Whether the factory hands out one shared native connection, whose commands can be kept while it is open. */
    private final boolean shared;

    /** Whether the factory is Lettuce's, whose connections this runner can use. */
    private final boolean lettuce;

    /** The client's command timeout, which bounds a blocking call's wait as it bounds the template's. */
    private final long timeoutMillis;

    /** The lock call timeout when shorter than the client's, else 0: the client's timeout bounds each command. */
    private final long boundMillis;

    /**
     * The scripts (SHA-1) this runner has sent: a script's first call goes as EVAL, which loads it in the order it was
     * sent. An EVALSHA answered NOSCRIPT is sent again as EVAL after the calls sent behind it, which run first: a
     * {@code releaseAsync()} followed by a grant of the same key would find the lock still held. That now happens
     * only after Redis lost its scripts (a restart, {@code SCRIPT FLUSH}). Bounded: a service has few copies.
     */
    private final Set<String> sent = ConcurrentHashMap.newKeySet();

    /** The shared connection's commands, kept between calls; null until first use. */
    private volatile @Nullable Shared sharedCommands;

    AsyncScriptRunner(RedisConnectionFactory connectionFactory, Consumer<Throwable> failures,
            @Nullable Duration callTimeout) {
        this.connectionFactory = connectionFactory;
        this.failures = failures;
        LettuceConnectionFactory lettuceFactory = (connectionFactory instanceof LettuceConnectionFactory factory)
                ? factory : null;
        this.lettuce = lettuceFactory != null;
        this.shared = lettuceFactory != null && lettuceFactory.getShareNativeConnection();
        this.timeoutMillis = (lettuceFactory != null) ? lettuceFactory.getTimeout() : 0;
        this.boundMillis = (callTimeout != null && callTimeout.toMillis() < this.timeoutMillis)
                ? callTimeout.toMillis() : 0;
    }

    /** Whether {@link #runBlocking} can run here (a Lettuce factory); else blocking calls need the template. */
    boolean runsBlockingCalls() {
        return this.lettuce;
    }

    /**
     * Sends a script; the future completes on a Redis client thread with the reply, or the failure translated as the
     * template translates it (told to the listener first).
     */
    CompletableFuture<Long> run(RedisScript<Long> script, List<String> keys, Object[] args) {
        CompletableFuture<Long> reply = new CompletableFuture<>();
        try {
            send(script, keys, args, reply, true);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(reported(ex));
        }
        return reply;
    }

    /**
     * Sends a grant script and, when it granted ({@code > 0}), {@code WAIT replicas timeout} on the very connection
     * that ran it, once its reply is in: {@code WAIT} counts the writes of its own connection only. The future
     * completes, on a Redis client thread, with the reply and the number of replicas that acknowledged (-1 when
     * {@code WAIT} failed or did not answer, 0 for a refused grant); a failure of the script as {@link #run} reports
     * it. Needs the factory's shared connection (the builder refuses acknowledgements without).
     */
    CompletableFuture<ScriptCall.Acknowledged> runAcknowledged(RedisScript<Long> script, List<String> keys,
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
            return CompletableFuture.failedFuture(reported(ex));
        }
        return reply.thenCompose(granted -> (granted <= 0)
                ? CompletableFuture.completedFuture(new ScriptCall.Acknowledged(granted, 0))
                : waitForReplicas(target, replicas, timeoutMillis)
                    .thenApply(acknowledged -> new ScriptCall.Acknowledged(granted, acknowledged)));
    }

    /** {@code WAIT} on {@code target}: -1 when it failed or did not answer within its timeout and a second. */
    static CompletableFuture<Long> waitForReplicas(Object target, int replicas, long timeoutMillis) {
        if (!(target instanceof BaseRedisAsyncCommands<?, ?> commands)) {
            return CompletableFuture.completedFuture(-1L);
        }
        // Redis answers by the WAIT timeout; the extra second only bounds a connection that stopped answering.
        return commands.waitForReplication(replicas, timeoutMillis).toCompletableFuture()
            .orTimeout(timeoutMillis + 1000, TimeUnit.MILLISECONDS)
            .handle((acknowledged, failure) -> (failure != null || acknowledged == null) ? -1L : acknowledged);
    }

    /**
     * Runs a script and waits for its reply as the template's blocking call waits: at most the client's command
     * timeout (or the shorter lock call timeout), the command left to Lettuce's own timeout after that; a failure
     * translated on the calling thread (and told to the listener) into the exception the template would throw; an
     * interrupt ends the wait with the flag set again (the command may still run in Redis, as with the template).
     */
    long runBlocking(RedisScript<Long> script, List<String> keys, Object[] args) {
        CompletableFuture<Long> reply = new CompletableFuture<>();
        try {
            send(script, keys, args, reply, false);
            return reply.get(this.timeoutMillis, TimeUnit.MILLISECONDS);
        }
        catch (ExecutionException ex) {
            throw failed(ex.getCause());
        }
        catch (TimeoutException ex) {
            RedisCommandTimeoutException timeout = new RedisCommandTimeoutException("Command timed out after "
                    + this.timeoutMillis + " ms");
            reply.completeExceptionally(timeout); // given up: no NOSCRIPT fallback runs the script after this
            throw failed(timeout);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            RedisCommandInterruptedException interrupted = new RedisCommandInterruptedException(ex);
            reply.completeExceptionally(interrupted);
            throw failed(interrupted);
        }
        catch (RuntimeException ex) {
            throw failed(ex);
        }
    }

    /** A failure translated as the template translates it and told to the listener (see {@link #reported}). */
    Throwable failure(Throwable failure) {
        return reported(unwrap(failure));
    }

    /** A blocking call's failure, translated and told; an error is thrown as it is. */
    private RuntimeException failed(Throwable failure) {
        Throwable translated = reported(failure);
        if (translated instanceof Error error) {
            throw error;
        }
        return (translated instanceof RuntimeException runtime) ? runtime
                : new RedisSystemException(translated.getMessage(), translated);
    }

    /**
     * Sends EVALSHA (EVAL on NOSCRIPT) and completes {@code reply} with its outcome: a failure translated and told
     * when {@code translate}, else as Lettuce reported it. Throws what getting a connection throws. When {@code reply}
     * is done before the NOSCRIPT answer comes (its caller gave up: a timeout, an interrupt, a withdrawn call), no
     * EVAL follows: the caller treats the outcome as unknown and has already sent what undoes or retries it, which
     * the script loaded and run after it would overtake.
     */
    private RedisScriptingAsyncCommands<byte[], byte[]> send(RedisScript<Long> script, List<String> keys,
            Object[] args, CompletableFuture<Long> reply, boolean translate) {
        RedisConnection connection = null;
        Shared kept = this.sharedCommands;
        RedisScriptingAsyncCommands<byte[], byte[]> commands;
        if (kept != null && kept.connection().isOpen()) {
            commands = kept.commands();
        }
        else {
            connection = this.connectionFactory.getConnection();
            commands = scripting(connection);
            StatefulConnection<?, ?> stateful = (commands instanceof RedisAsyncCommands<?, ?> single)
                    ? single.getStatefulConnection()
                    : (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
                            ? cluster.getStatefulConnection() : null;
            if (this.shared && stateful != null) {
                // the factory's one connection: kept while open (a reset factory opens another), not closed here
                this.sharedCommands = new Shared(commands, stateful);
                connection.close();
                connection = null;
            }
        }
        byte[][] encodedKeys = encode(keys.toArray());
        byte[][] encodedArgs = encode(args);
        RedisConnection dedicated = connection;
        RedisScriptingAsyncCommands<byte[], byte[]> target = commands;
        if (this.sent.add(script.getSha1())) {
            bounded(target.<Long>eval(script.getScriptAsString(), ScriptOutputType.INTEGER, encodedKeys, encodedArgs))
                .whenComplete((loaded, failure) -> finish(reply, dedicated, loaded, failure, translate));
            return target;
        }
        bounded(target.<Long>evalsha(script.getSha1(), ScriptOutputType.INTEGER, encodedKeys, encodedArgs))
            .whenComplete((value, failure) -> {
                if (failure != null && unwrap(failure) instanceof RedisNoScriptException && !reply.isDone()) {
                    bounded(target.<Long>eval(script.getScriptAsString(), ScriptOutputType.INTEGER, encodedKeys,
                            encodedArgs))
                        .whenComplete((loaded, evalFailure) -> finish(reply, dedicated, loaded, evalFailure,
                                translate));
                }
                else {
                    finish(reply, dedicated, value, failure, translate);
                }
            });
        return target;
    }

    /**
     * The command, completed with a timeout after the lock call timeout when that is the shorter: completed, Lettuce
     * neither sends it after a reconnect nor waits for it longer (as with its own command timeout).
     */
    private CompletionStage<Long> bounded(RedisFuture<Long> command) {
        return (this.boundMillis > 0)
                ? command.toCompletableFuture().orTimeout(this.boundMillis, TimeUnit.MILLISECONDS) : command;
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

    private void finish(CompletableFuture<Long> reply, @Nullable RedisConnection dedicated, Long value,
            Throwable failure, boolean translate) {
        if (dedicated != null) {
            try {
                dedicated.close(); // a dedicated connection goes back once the reply is in
            }
            catch (RuntimeException ignored) {
                // the reply matters, not the close
            }
        }
        if (failure != null) {
            Throwable cause = (unwrap(failure) instanceof TimeoutException) // the bound's, not Lettuce's own
                    ? new RedisCommandTimeoutException("Redis did not answer a lock call within the lock call timeout "
                            + "of " + this.boundMillis + " ms")
                    : unwrap(failure);
            reply.completeExceptionally(translate ? reported(cause) : cause);
        }
        else if (value == null) {
            reply.completeExceptionally(new IllegalStateException("A lock script answered nothing"));
        }
        else {
            reply.complete(value);
        }
    }

    /**
     * A failure translated as the template translates it, and told to the listener; the listener's own failure never
     * keeps the call from reporting it.
     */
    private Throwable reported(Throwable failure) {
        Throwable translated = translate(failure);
        try {
            this.failures.accept(translated);
        }
        catch (RuntimeException ignored) {
            // the call's failure is what its caller hears of
        }
        return translated;
    }

    /** The shared connection's script commands, and the connection, to tell whether it is still open. */
    private record Shared(RedisScriptingAsyncCommands<byte[], byte[]> commands, StatefulConnection<?, ?> connection) {
    }

    private static Throwable unwrap(Throwable failure) {
        return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
    }

    private static Throwable translate(Throwable failure) {
        if (failure instanceof DataAccessException || !(failure instanceof Exception ex)) {
            return failure;
        }
        DataAccessException translated = exceptions.convert(ex);
        return (translated != null) ? translated : new RedisSystemException(ex.getMessage(), ex);
    }

    /** Keys or arguments as the bytes Lettuce's byte-array codec sends: UTF-8 of each one's text. */
    static byte[][] encode(Object[] values) {
        byte[][] encoded = new byte[values.length][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = values[i].toString().getBytes(StandardCharsets.UTF_8);
        }
        return encoded;
    }
}
