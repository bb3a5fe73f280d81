package dev.distlock.redis.script;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One call of a lock script that answers an integer, built once and run either on the calling thread
 * ({@link #run()}) or without blocking it ({@link #runAsync()}).
 *
 * @param scripts the service's scripts, which run it
 * @param script the script
 * @param keys every key the script touches
 * @param args the script's arguments, all strings
 */
public record ScriptCall(LockScripts scripts, RedisScript<Long> script, List<String> keys, Object[] args) {

    /** Runs the script and waits for its reply; a failure is the Redis client's {@code DataAccessException}. */
    public long run() {
        return this.scripts.run(this.script, this.keys, this.args);
    }

    /**
     * Sends the script without waiting. The future completes on a Redis client thread (do not block there), with the
     * reply or the {@code DataAccessException} the blocking call would throw.
     */
    public CompletableFuture<Long> runAsync() {
        return this.scripts.runAsync(this.script, this.keys, this.args);
    }

    /**
     * Sends a grant script without waiting and, when it granted, {@code WAIT} for {@code replicas} replicas on the
     * connection that ran it (on a Redis Cluster: that of the slot's master), before the future completes on a Redis
     * client thread (do not block there) with the reply and the acknowledgements, or the {@code DataAccessException}
     * the blocking call would throw.
     */
    public CompletableFuture<Acknowledged> runAcknowledgedAsync(int replicas, long timeoutMillis) {
        return this.scripts.runAcknowledgedAsync(this.script, this.keys, this.args, replicas, timeoutMillis);
    }

    /**
     * A grant's reply and how many replicas acknowledged it.
     *
     * @param reply the script's reply
     * @param acknowledged replicas that acknowledged a grant ({@code reply > 0}); -1 when {@code WAIT} failed or did
     * not answer; 0 for a refusal
     */
    public record Acknowledged(long reply, long acknowledged) {
    }
}
