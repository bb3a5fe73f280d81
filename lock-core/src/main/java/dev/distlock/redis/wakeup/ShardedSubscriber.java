package dev.distlock.redis.wakeup;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import org.jspecify.annotations.Nullable;

/**
 * Sharded pub/sub ({@code SSUBSCRIBE}, Redis 7 and later) through Lettuce's cluster pub/sub connection, which sends
 * each subscription to the master that owns the channel's slot, so that a release reaches only the nodes of its
 * shard. Spring Data Redis has no sharded pub/sub, hence the native client. Lettuce reconnects each node's
 * connection and subscribes again by itself.
 */
final class ShardedSubscriber implements ChannelSubscriber {

    private final RedisClusterClient client;

    private final long timeoutMillis;

    private final Listener listener;

    private @Nullable StatefulRedisClusterPubSubConnection<String, String> connection;

    ShardedSubscriber(RedisClusterClient client, Duration timeout, Listener listener) {
        this.client = client;
        this.timeoutMillis = timeout.toMillis();
        this.listener = listener;
    }

    @Override
    public boolean isOpen() {
        StatefulRedisClusterPubSubConnection<String, String> current = this.connection;
        return current != null && current.isOpen();
    }

    @Override
    public void connect(List<String> channels) {
        close();
        StatefulRedisClusterPubSubConnection<String, String> fresh = this.client.connectPubSub(StringCodec.UTF8);
        fresh.addListener(new RedisClusterPubSubAdapter<>() {

            @Override
            public void smessage(RedisClusterNode node, String channel, String message) {
                ShardedSubscriber.this.listener.message(channel, message);
            }

            @Override
            public void sunsubscribed(RedisClusterNode node, String channel, long count) {
                ShardedSubscriber.this.listener.dropped(channel);
            }
        });
        try {
            List<RedisFuture<Void>> subscriptions = new ArrayList<>(channels.size());
            for (String channel : channels) {
                subscriptions.add(fresh.async().ssubscribe(channel)); // one per channel: each goes to its own slot
            }
            for (RedisFuture<Void> subscription : subscriptions) {
                await(subscription);
            }
        }
        catch (RuntimeException ex) {
            fresh.close();
            throw ex;
        }
        this.connection = fresh;
    }

    @Override
    public void subscribe(String channel) {
        await(openConnection().async().ssubscribe(channel));
    }

    @Override
    public void unsubscribe(List<String> channels) {
        StatefulRedisClusterPubSubConnection<String, String> current = openConnection();
        List<RedisFuture<Void>> unsubscriptions = new ArrayList<>(channels.size());
        for (String channel : channels) {
            unsubscriptions.add(current.async().sunsubscribe(channel)); // one per channel: each to its own slot
        }
        for (RedisFuture<Void> unsubscription : unsubscriptions) {
            await(unsubscription);
        }
    }

    @Override
    public void close() {
        StatefulRedisClusterPubSubConnection<String, String> current = this.connection;
        this.connection = null;
        if (current != null) {
            current.close();
        }
    }

    private StatefulRedisClusterPubSubConnection<String, String> openConnection() {
        StatefulRedisClusterPubSubConnection<String, String> current = this.connection;
        if (current == null) {
            throw new IllegalStateException("The release subscription is not open");
        }
        return current;
    }

    private void await(RedisFuture<Void> command) {
        LettuceFutures.awaitOrCancel(command, this.timeoutMillis, TimeUnit.MILLISECONDS);
    }
}
