package dev.distlock.bench.clients;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;

/**
 * The non-blocking fenced floor: {@link FencedFloorClient}'s two scripts on Lettuce's async API and one connection,
 * as {@link RawAsyncClient} runs the raw floor's commands (a refused acquire is sent again at once).
 */
final class FencedFloorAsyncClient implements AsyncLockClient {

    private final LettuceAsyncConnection connection;

    private final RedisAsyncCommands<String, String> commands;

    private final String acquireSha;

    private final String releaseSha;

    private final String lease;

    private final long maxWaitNanos;

    private final String tokenPrefix = Long.toHexString(ThreadLocalRandom.current().nextLong()) + ":";

    private final AtomicLong tokens = new AtomicLong();

    FencedFloorAsyncClient(ClientSettings settings) {
        this.connection = new LettuceAsyncConnection(settings.port());
        this.commands = this.connection.commands;
        this.acquireSha = this.connection.scriptLoad(FencedFloorClient.ACQUIRE);
        this.releaseSha = this.connection.scriptLoad(RawAsyncClient.COMPARE_AND_DELETE);
        this.lease = Long.toString(settings.watchdogLease().toMillis());
        this.maxWaitNanos = settings.maxWait().toNanos();
    }

    @Override
    public CompletionStage<Held> acquire(String key, int owner) {
        String lockKey = "bench-fenced-async:{" + key + "}";
        String[] keys = { lockKey, lockKey + ":fence" };
        String token = this.tokenPrefix + this.tokens.incrementAndGet();
        return attempt(keys, token, System.nanoTime()).thenApply(ignored -> () -> this.commands
            .evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { lockKey }, token)
            .thenApply(deleted -> (Void) null));
    }

    private CompletionStage<Void> attempt(String[] keys, String token, long start) {
        return this.commands.<Long>evalsha(this.acquireSha, ScriptOutputType.INTEGER, keys, token, this.lease)
            .thenCompose(fence -> {
                if (fence != null && fence > 0) {
                    return CompletableFuture.completedFuture(null);
                }
                if (System.nanoTime() - start > this.maxWaitNanos) {
                    throw new CompletionException(new LockClient.AcquireTimeoutException(keys[0]));
                }
                return attempt(keys, token, start);
            });
    }

    @Override
    public void close() {
        this.connection.close();
    }
}
