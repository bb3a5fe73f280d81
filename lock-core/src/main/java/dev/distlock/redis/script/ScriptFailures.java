package dev.distlock.redis.script;

import static dev.distlock.internal.Futures.unwrap;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

import io.lettuce.core.RedisCommandTimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * How a failed lock call sent through Lettuce reaches its caller: translated as Spring Data Redis translates it on the
 * template's path, so that both paths report alike, and told to a listener (the ACL guard's) before the call's future
 * completes with it: no stage per call for that.
 */
final class ScriptFailures {

    private static final LettuceExceptionConverter exceptions = new LettuceExceptionConverter();

    /** Told of every failed call, on the thread that completes it, before its future completes. */
    private final Consumer<Throwable> listener;

    ScriptFailures(Consumer<Throwable> listener) {
        this.listener = listener;
    }

    /**
     * Completes a call's reply with its value, or its failure ({@code report}: reported, else as Lettuce reported
     * it); the timeout of a lock call timeout's bound ({@code boundMillis}, see ScriptPipeline#bounded) says so.
     */
    <T> void complete(CompletableFuture<T> reply, @Nullable T value, @Nullable Throwable failure, boolean report,
            long boundMillis) {
        if (failure != null) {
            Throwable cause = (unwrap(failure) instanceof TimeoutException) // the bound's, not Lettuce's own
                    ? new RedisCommandTimeoutException("Redis did not answer a lock call within the lock call timeout "
                            + "of " + boundMillis + " ms")
                    : unwrap(failure);
            reply.completeExceptionally(report ? reported(cause) : cause);
        }
        else if (value == null) {
            reply.completeExceptionally(new IllegalStateException("A lock script answered nothing"));
        }
        else {
            reply.complete(value);
        }
    }

    /** A completed call's failure (possibly wrapped by a stage), translated and told. */
    Throwable failure(Throwable failure) {
        return reported(unwrap(failure));
    }

    /** A blocking call's failure, translated and told, to throw; an error is thrown as it is. */
    RuntimeException thrown(Throwable failure) {
        Throwable translated = reported(failure);
        if (translated instanceof Error error) {
            throw error;
        }
        return (translated instanceof RuntimeException runtime) ? runtime
                : new RedisSystemException(translated.getMessage(), translated);
    }

    /**
     * A failure translated as the template translates it, and told to the listener; the listener's own failure never
     * keeps the call from reporting it.
     */
    Throwable reported(Throwable failure) {
        Throwable translated = translate(failure);
        try {
            this.listener.accept(translated);
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
}
