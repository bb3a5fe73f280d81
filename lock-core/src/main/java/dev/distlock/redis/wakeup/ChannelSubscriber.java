package dev.distlock.redis.wakeup;

import java.util.List;

import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.redis.script.ShardedPubSub;

/**
 * The connection that brings release messages to {@link ReleaseSubscriptions}: classic pub/sub through Spring Data
 * Redis ({@link ClassicSubscriber}), or sharded pub/sub through Lettuce's cluster client ({@link ShardedSubscriber}).
 * Called under the subscriptions' lock only; every method may throw the client's {@link RuntimeException}.
 */
public interface ChannelSubscriber {

    /** The subscriber that {@code sharded} calls for (which asks Redis, on first use). */
    static ChannelSubscriber create(RedisConnectionFactory connectionFactory, ShardedPubSub sharded,
            Listener listener) {
        if (sharded.enabled() && connectionFactory instanceof LettuceConnectionFactory lettuce
                && lettuce.getNativeClient() instanceof RedisClusterClient client) {
            return new ShardedSubscriber(client, lettuce.getClientConfiguration().getCommandTimeout(), listener);
        }
        return new ClassicSubscriber(connectionFactory, listener);
    }

    /** Whether the connection is open with its subscriptions. */
    boolean isOpen();

    /** Opens a connection subscribed to {@code channels} (at least one), closing the previous one if any. */
    void connect(List<String> channels);

    void subscribe(String channel);

    /** Unsubscribes from every one of {@code channels} (at least one) in as few commands as the client allows. */
    void unsubscribe(List<String> channels);

    void close();

    /** Receives what arrives on the connection, on the client's thread. */
    interface Listener {

        void message(String channel, String message);

        /** Redis dropped a subscription by itself: the channel's slot moved to another shard. */
        void dropped(String channel);
    }
}
