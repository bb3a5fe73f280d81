package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
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
 * waiting: EVALSHA, the service's scripts kept loaded and a NOSCRIPT recovered in the order calls were sent
 * ({@link ScriptReload}; on a dedicated connection, EVAL at once). Failures are translated
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

    private final ScriptConnection connection;

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
     * @param scripts the service's scripts, to load at start-up and after NOSCRIPT (the variant of each it runs)
     * @param loads whether to load them with {@code SCRIPT LOAD} (not behind a sharding proxy)
     */
    AsyncScriptRunner(RedisConnectionFactory connectionFactory, Consumer<Throwable> failures,
            @Nullable Duration callTimeout, Supplier<List<RedisScript<?>>> scripts, boolean loads) {
        this.failures = failures;
        LettuceConnectionFactory lettuceFactory = (connectionFactory instanceof LettuceConnectionFactory factory)
                ? factory : null;
        this.lettuce = lettuceFactory != null;
        this.shared = lettuceFactory != null && lettuceFactory.getShareNativeConnection();
        this.timeoutMillis = (lettuceFactory != null) ? lettuceFactory.getTimeout() : 0;
        this.boundMillis = (callTimeout != null && callTimeout.toMillis() < this.timeoutMillis)
                ? callTimeout.toMillis() : 0;
        this.connection = new ScriptConnection(connectionFactory, this.shared,
                new ScriptReload.Settings(scripts, loads && this.lettuce, this.boundMillis, this.timeoutMillis));
    }

    /** See {@link ScriptConnection#load()}. */
    @Nullable Throwable load() {
        return this.connection.load();
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

    /** Whether {@link #runBatch} can send here: on the Lettuce factory's shared connection. */
    boolean sendsBatches() {
        return this.shared;
    }

    /**
     * Sends a script answering a list (a renewal batch's) on the shared connection, as {@link #run} sends: any number
     * in flight, none waiting. The future completes on a Redis client thread with the reply, or the failure
     * translated and told, at the latest a second after the client's command timeout.
     */
    CompletableFuture<List<Object>> runBatch(RedisScript<?> script, List<String> keys, Object[] args) {
        CompletableFuture<List<Object>> reply = new CompletableFuture<>();
        try {
            ScriptConnection.Target sendOn = this.connection.target();
            if (sendOn.dedicated() != null) {
                sendOn.dedicated().close();
                throw new IllegalStateException("Batches are sent on the factory's shared native connection only");
            }
            byte[][] encodedKeys = encode(keys.toArray());
            RedisScriptingAsyncCommands<byte[], byte[]> target = sendOn.commands();
            this.connection.reloadFor(target, encodedKeys[0]).send(new ScriptReload.Call<List<Object>>(script,
                    ScriptOutputType.MULTI, encodedKeys, encode(args), reply, target,
                    (value, failure) -> finish(reply, null, value, failure, true)));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(reported(ex));
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
    CompletableFuture<ScriptRunner.Acknowledged> runAcknowledged(RedisScript<Long> script, List<String> keys,
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
                ? CompletableFuture.completedFuture(new ScriptRunner.Acknowledged(granted, 0))
                : waitForReplicas(target, replicas, timeoutMillis)
                    .thenApply(acknowledged -> new ScriptRunner.Acknowledged(granted, acknowledged)));
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
        ScriptConnection.Target sendOn = this.connection.target();
        RedisConnection connection = sendOn.dedicated();
        RedisScriptingAsyncCommands<byte[], byte[]> commands = sendOn.commands();
        byte[][] encodedKeys = encode(keys.toArray());
        byte[][] encodedArgs = encode(args);
        RedisConnection dedicated = connection;
        RedisScriptingAsyncCommands<byte[], byte[]> target = commands;
        if (dedicated == null) {
            this.connection.reloadFor(target, encodedKeys[0]).send(new ScriptReload.Call<>(script,
                    ScriptOutputType.INTEGER, encodedKeys, encodedArgs, reply, target,
                    (value, failure) -> finish(reply, null, value, failure, translate)));
            return target;
        }
        // a connection of this call's own: nothing else is sent on it before the answer, so EVAL at once keeps order
        ScriptReload.bounded(this.boundMillis, target.<Long>evalsha(script.getSha1(), ScriptOutputType.INTEGER, encodedKeys, encodedArgs))
            .whenComplete((value, failure) -> {
                if (failure != null && unwrap(failure) instanceof RedisNoScriptException
                        && !reply.isDone()) {
                    ScriptReload.bounded(this.boundMillis, target.<Long>eval(script.getScriptAsString(), ScriptOutputType.INTEGER,
                            encodedKeys, encodedArgs))
                        .whenComplete((loaded, evalFailure) -> finish(reply, dedicated, loaded, evalFailure,
                                translate));
                }
                else {
                    finish(reply, dedicated, value, failure, translate);
                }
            });
        return target;
    }

    private <T> void finish(CompletableFuture<T> reply, @Nullable RedisConnection dedicated, @Nullable T value,
            @Nullable Throwable failure, boolean translate) {
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
