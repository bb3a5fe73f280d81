package dev.distlock.redis.script;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.core.script.RedisScript;

/** Sends a lock script that answers an integer to Redis (see {@link ScriptCall} for each method's contract). */
public interface ScriptRunner {

    /** Runs the script on the calling thread and waits for its reply. */
    long run(RedisScript<Long> script, List<String> keys, Object[] args);

    /** Sends the script without waiting; the future completes on a Redis client thread. */
    CompletableFuture<Long> runAsync(RedisScript<Long> script, List<String> keys, Object[] args);

    /** Sends a grant script without waiting, then {@code WAIT} for {@code replicas} on the connection that ran it. */
    CompletableFuture<Acknowledged> runAcknowledgedAsync(RedisScript<Long> script, List<String> keys, Object[] args,
            int replicas, long timeoutMillis);

    /**
     * A grant's reply and how many replicas acknowledged it.
     *
     * @param reply the script's reply
     * @param acknowledged replicas that acknowledged a grant ({@code reply > 0}); -1 when {@code WAIT} failed or did
     * not answer; 0 for a refusal
     */
    record Acknowledged(long reply, long acknowledged) {
    }
}
