package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * What the data-layout tests share: a service with settings whose every expiry rule has its own length, so that a key's
 * PTTL says which rule set it (watchdog lease 20 s, fixed lease 47 s, token retention 13 s, waiter lease 7 s, release
 * delay 31 s), raw reads of Redis ({@link DataLayoutSnapshot}) and a raw subscriber of release channels.
 */
@RedisTest
abstract class DataLayoutSupport {

    static final long WATCHDOG_LEASE = 20_000;

    static final long FIXED_LEASE = 47_000;

    static final long RETENTION = 13_000;

    static final long WAITER_LEASE = 7_000;

    static final long DELAY = 31_000;

    static final Duration WAIT = Duration.ofSeconds(5);

    RedisNode redis;

    RedisClients clients;

    StringRedisTemplate data;

    RedisClient pubSubClient;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.data = this.clients.template();
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
        if (this.pubSubClient != null) {
            this.pubSubClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** A service with the layout's test settings, prefix {@code dl}. */
    static UnaryOperator<RedisLockServiceBuilder> settings() {
        return builder -> builder.keyPrefix("dl")
            .watchdogLease(Duration.ofMillis(WATCHDOG_LEASE))
            .renewalInterval(Duration.ofMillis(250))
            .tokenRetention(Duration.ofMillis(RETENTION))
            .waiterLease(Duration.ofMillis(WAITER_LEASE));
    }

    RedisLockService service() {
        return this.clients.service(settings());
    }

    DataLayoutSnapshot snapshot() {
        return DataLayoutSnapshot.read(this.data);
    }

    static LockOptions owner(String owner) {
        return LockOptions.defaults().withOwner(owner);
    }

    /** Waits until Redis holds more than {@code size} (see {@link DataLayoutSnapshot#size()}). */
    void awaitGrowth(long size, String what) {
        Await.until(WAIT, () -> snapshot().size() > size, what);
    }

    long uptimeSeconds() {
        String info = this.redis.call("INFO", "server").toString();
        Matcher uptime = Pattern.compile("uptime_in_seconds:(\\d+)").matcher(info);
        return uptime.find() ? Long.parseLong(uptime.group(1)) : 0;
    }

    /** Subscribes (classic pub/sub) to a release channel and returns the messages as they come. */
    BlockingQueue<String> subscribe(String channel) {
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        this.pubSubClient = RedisClient.create(RedisURI.create("127.0.0.1", this.redis.port()));
        StatefulRedisPubSubConnection<String, String> connection = this.pubSubClient.connectPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                if (from.equals(channel)) {
                    messages.add(message);
                }
            }
        });
        connection.sync().subscribe(channel);
        return messages;
    }
}
