package dev.distlock.redis.quorum;

import java.util.List;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.script.LockKeys;
import dev.distlock.redis.script.ScriptArgument;
import dev.distlock.redis.script.ScriptLayout;

/**
 * One independent Redis master of a {@link QuorumLockService}: its own {@link RedisLockService}, which takes, renews
 * and releases the quorum's member locks on it, and the quorum fence (quorum-fence.lua) kept next to each lock.
 */
final class QuorumNode {

    private static final ScriptLayout<Long> RAISE_FENCE = ScriptLayout.load("quorum-fence.lua", Long.class,
            ScriptArgument.OWNER_TOKEN, ScriptArgument.RAISE_TO, ScriptArgument.TOKEN_RETENTION_MILLIS);

    /** What {@link #raiseFence} answers when this owner no longer holds the lock on this master. */
    static final long NOT_HELD = -1;

    /** {@code host:port}, or {@code node <index>} when the connection does not say; for messages. */
    final String name;

    final RedisLockService locks;

    private final StringRedisTemplate redis;

    private final LockKeys keys;

    private final String tokenRetentionMillis;

    QuorumNode(int index, StringRedisTemplate redis, RedisLockService locks, LockKeys keys,
            String tokenRetentionMillis) {
        this.name = name(index, redis.getConnectionFactory());
        this.redis = redis;
        this.locks = locks;
        this.keys = keys;
        this.tokenRetentionMillis = tokenRetentionMillis;
    }

    private static String name(int index, RedisConnectionFactory connectionFactory) {
        if (connectionFactory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware()) {
            return lettuce.getHostName() + ":" + lettuce.getPort();
        }
        return "node " + index;
    }

    /**
     * Raises this master's quorum fence of {@code key} (and the lock's last token) to {@code token} if the owner
     * still holds the lock here and the fence is lower.
     *
     * @return the fence before the call (0 when none), or {@link #NOT_HELD}
     */
    long raiseFence(String key, String ownerToken, long token) {
        Long previous = this.redis.execute(RAISE_FENCE.script(),
                List.of(this.keys.lockHash(key), this.keys.name(key, "quorum-fence")), RAISE_FENCE.newArguments()
                    .set(ScriptArgument.OWNER_TOKEN, ownerToken)
                    .set(ScriptArgument.RAISE_TO, Long.toString(token))
                    .set(ScriptArgument.TOKEN_RETENTION_MILLIS, this.tokenRetentionMillis)
                    .toArray());
        if (previous == null) {
            throw new IllegalStateException("Lock scripts cannot run in a Redis pipeline or transaction");
        }
        return previous;
    }

    /** Sends PING; throws the connection's exception when the master does not answer. */
    void ping() {
        this.redis.execute((RedisCallback<String>) connection -> connection.ping());
    }

    @Override
    public String toString() {
        return this.name;
    }
}
