package dev.distlock.redis.script;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends integer-answering scripts through Lettuce's asynchronous API on the connection factory's shared connection,
 * so that any number of calls are in flight on one connection with no thread waiting: EVALSHA, and EVAL when Redis
 * answers NOSCRIPT (after a restart or {@code SCRIPT FLUSH}), as the blocking template does. Failures are translated
 * as Spring Data Redis translates them on the blocking path, so both paths report alike.
 */
final class AsyncScriptRunner {

    private static final LettuceExceptionConverter exceptions = new LettuceExceptionConverter();

    private final RedisConnectionFactory connectionFactory;

    AsyncScriptRunner(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
    }

    CompletableFuture<Long> run(RedisScript<Long> script, List<String> keys, Object[] args) {
        RedisConnection connection;
        RedisScriptingAsyncCommands<byte[], byte[]> commands;
        try {
            connection = this.connectionFactory.getConnection();
            commands = scripting(connection);
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(translate(ex));
        }
        byte[][] encodedKeys = new byte[keys.size()][];
        for (int i = 0; i < encodedKeys.length; i++) {
            encodedKeys[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
        }
        byte[][] encodedArgs = new byte[args.length][];
        for (int i = 0; i < encodedArgs.length; i++) {
            encodedArgs[i] = args[i].toString().getBytes(StandardCharsets.UTF_8);
        }
        CompletableFuture<Long> reply = new CompletableFuture<>();
        commands.<Long>evalsha(script.getSha1(), ScriptOutputType.INTEGER, encodedKeys, encodedArgs)
            .whenComplete((value, failure) -> {
                if (failure != null && unwrap(failure) instanceof RedisNoScriptException) {
                    commands.<Long>eval(script.getScriptAsString(), ScriptOutputType.INTEGER, encodedKeys, encodedArgs)
                        .whenComplete((loaded, evalFailure) -> finish(reply, connection, loaded, evalFailure));
                }
                else {
                    finish(reply, connection, value, failure);
                }
            });
        return reply;
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

    private static void finish(CompletableFuture<Long> reply, RedisConnection connection, Long value,
            Throwable failure) {
        try {
            connection.close(); // a shared connection stays open; a dedicated one goes back once the reply is in
        }
        catch (RuntimeException ignored) {
            // the reply matters, not the close
        }
        if (failure != null) {
            reply.completeExceptionally(translate(unwrap(failure)));
        }
        else if (value == null) {
            reply.completeExceptionally(new IllegalStateException("A lock script answered nothing"));
        }
        else {
            reply.complete(value);
        }
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
}
