package dev.distlock.redis.wakeup;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** Classic pub/sub ({@code SUBSCRIBE}) on one Spring Data Redis connection: standalone, Sentinel or cluster. */
final class ClassicSubscriber implements ChannelSubscriber, MessageListener {

    private final RedisConnectionFactory connectionFactory;

    private final Listener listener;

    private @Nullable RedisConnection connection;

    ClassicSubscriber(RedisConnectionFactory connectionFactory, Listener listener) {
        this.connectionFactory = connectionFactory;
        this.listener = listener;
    }

    @Override
    public boolean isOpen() {
        RedisConnection current = this.connection;
        return current != null && current.isSubscribed();
    }

    @Override
    public void connect(List<String> channels) {
        close();
        byte[][] names = new byte[channels.size()][];
        for (int i = 0; i < names.length; i++) {
            names[i] = bytes(channels.get(i));
        }
        RedisConnection fresh = this.connectionFactory.getConnection();
        try {
            fresh.subscribe(this, names);
        }
        catch (RuntimeException ex) {
            fresh.close();
            throw ex;
        }
        this.connection = fresh;
    }

    @Override
    public void subscribe(String channel) {
        subscribedConnection().getSubscription().subscribe(bytes(channel));
    }

    @Override
    public void unsubscribe(List<String> channels) {
        byte[][] names = new byte[channels.size()][];
        for (int i = 0; i < names.length; i++) {
            names[i] = bytes(channels.get(i));
        }
        subscribedConnection().getSubscription().unsubscribe(names); // one UNSUBSCRIBE naming them all
    }

    @Override
    public void close() {
        RedisConnection current = this.connection;
        this.connection = null;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public void onMessage(Message message, byte @Nullable [] pattern) {
        this.listener.message(new String(message.getChannel(), StandardCharsets.UTF_8),
                new String(message.getBody(), StandardCharsets.UTF_8));
    }

    private RedisConnection subscribedConnection() {
        RedisConnection current = this.connection;
        if (current == null || current.getSubscription() == null) {
            throw new IllegalStateException("The release subscription is not open");
        }
        return current;
    }

    private static byte[] bytes(String channel) {
        return channel.getBytes(StandardCharsets.UTF_8);
    }
}
