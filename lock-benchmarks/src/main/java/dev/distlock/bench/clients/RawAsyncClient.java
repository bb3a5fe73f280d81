package dev.distlock.bench.clients;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * The non-blocking floor: Lettuce's async API on one connection, {@code SET key token NX PX lease} to acquire (a
 * refused SET is sent again at once, until the maximum wait passes) and one {@code EVALSHA} compare-and-delete to
 * release; commands of all chains go out pipelined on that connection. No watchdog, reentrancy, fencing or wake-up:
 * what a lock cycle costs Redis and the client at the least.
 */
final class RawAsyncClient implements AsyncLockClient {

    static final String COMPARE_AND_DELETE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    private final LettuceAsyncConnection connection;

    private final RedisAsyncCommands<String, String> commands;

    private final String releaseSha;

    private final SetArgs setArgs;

    private final long maxWaitNanos;

    private final String tokenPrefix = Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";

    private final AtomicLong tokens = new AtomicLong();

    RawAsyncClient(ClientSettings settings) {
        this.connection = new LettuceAsyncConnection(settings.port());
        this.commands = this.connection.commands;
        this.releaseSha = this.connection.scriptLoad(COMPARE_AND_DELETE);
        this.setArgs = SetArgs.Builder.nx().px(settings.watchdogLease().toMillis());
        this.maxWaitNanos = settings.maxWait().toNanos();
    }

    @Override
    public CompletionStage<Held> acquire(String key, int owner) {
        String redisKey = "bench-raw-async:" + key;
        String token = this.tokenPrefix + this.tokens.incrementAndGet();
        return attempt(redisKey, token, System.nanoTime()).thenApply(ignored -> () -> this.commands
            .evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { redisKey }, token)
            .thenApply(deleted -> (Void) null));
    }

    private CompletionStage<Void> attempt(String key, String token, long start) {
        return this.commands.set(key, token, this.setArgs).thenCompose(reply -> {
            if ("OK".equals(reply)) {
                return CompletableFuture.completedFuture(null);
            }
            if (System.nanoTime() - start > this.maxWaitNanos) {
                throw new CompletionException(new LockClient.AcquireTimeoutException(key));
            }
            return attempt(key, token, start);
        });
    }

    @Override
    public void close() {
        this.connection.close();
    }
}
