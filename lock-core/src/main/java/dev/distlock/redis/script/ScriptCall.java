package dev.distlock.redis.script;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One call of a lock script that answers an integer, built once by a lock type and run either on the calling thread
 * ({@link #run()}) or without blocking it ({@link #runAsync()}).
 *
 * @param runner what sends it to Redis
 * @param script the script
 * @param keys every key the script touches
 * @param args the script's arguments, all strings
 */
public record ScriptCall(ScriptRouter runner, RedisScript<Long> script, List<String> keys, Object[] args) {

    /** Runs the script and waits for its reply; a failure is the Redis client's {@code DataAccessException}. */
    public long run() {
        return this.runner.run(this.script, this.keys, this.args);
    }

    /**
     * Sends the script without waiting. The future completes on a Redis client thread (do not block there), with the
     * reply or the {@code DataAccessException} the blocking call would throw.
     */
    public CompletableFuture<Long> runAsync() {
        return this.runner.runAsync(this.script, this.keys, this.args);
    }

    /**
     * Sends a grant script without waiting and, when it granted, {@code WAIT} for {@code replicas} replicas on the
     * connection that ran it (on a Redis Cluster: that of the slot's master), before the future completes on a Redis
     * client thread (do not block there) with the reply and the acknowledgements, or the {@code DataAccessException}
     * the blocking call would throw.
     */
    public CompletableFuture<AcknowledgedReply> runAcknowledgedAsync(int replicas, long timeoutMillis) {
        return this.runner.runAcknowledgedAsync(this.script, this.keys, this.args, replicas, timeoutMillis);
    }
}
