package dev.distlock.redis.wakeup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.script.LockType.WakeUp;
import dev.distlock.redis.script.ShardedPubSub;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * Release subscriptions on a real Redis Cluster: sharded pub/sub, each channel subscribed on the master of its slot,
 * woken by SPUBLISH there, and unsubscribed there once idle past the linger.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShardedSubscriptionsTest {

    private final RedisServers servers = RedisServers.create();

    private ClusterTopology cluster;

    private LettuceConnectionFactory factory;

    @BeforeAll
    void startCluster() {
        this.cluster = this.servers.startCluster(3, 0);
        this.factory = new LettuceConnectionFactory(new RedisClusterConfiguration(this.cluster.seedNodes()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        this.factory.afterPropertiesSet();
        this.factory.start();
    }

    @AfterAll
    void stop() {
        if (this.factory != null) { // null when the cluster did not start (a run skipped for want of its server)
            this.factory.destroy();
        }
        this.servers.close();
    }

    @Test
    void eachChannelIsSubscribedOnItsOwnMasterWokenThereAndDroppedThereWhenIdle() {
        ShardedPubSub sharded = new ShardedPubSub(new StringRedisTemplate(this.factory), "distlock:{probe}:released");
        assertThat(sharded.enabled()).isTrue();
        assertThat(sharded.publishCommand()).isEqualTo("SPUBLISH");
        List<String> received = new CopyOnWriteArrayList<>();
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(this.factory,
                listener -> ChannelSubscriber.create(this.factory, sharded, new ChannelSubscriber.Listener() {

                    @Override
                    public void message(String channel, String message) {
                        received.add(channel + " " + message);
                        listener.message(channel, message);
                    }

                    @Override
                    public void dropped(String channel) {
                        listener.dropped(channel);
                    }
                }), "distlock:client:test", "own-message", TimeUnit.HOURS.toNanos(1)); // swept by hand below
        try {
            List<String> channels = channelsOnEveryMaster();
            List<Waiter> waiters = new ArrayList<>();
            for (String channel : channels) {
                Waiter waiter = subscriptions.startWaiting(channel, WakeUp.ONE, "waiter");
                assertThat(waiter.subscribed()).isTrue();
                waiters.add(waiter);
            }
            for (int i = 0; i < channels.size(); i++) {
                RedisNode owner = this.cluster.masters().get(i);
                for (RedisNode master : this.cluster.masters()) {
                    assertThat(master.call("PUBSUB", "SHARDNUMSUB", channels.get(i)))
                        .endsWith(master == owner ? "\n1" : "\n0");
                }
                Waiter waiter = waiters.get(i);
                waiter.arm();
                assertThat(owner.call("SPUBLISH", channels.get(i), "another-service")).isEqualTo("1");
                assertThat(waiter.await(TimeUnit.SECONDS.toNanos(10))).isTrue();
                assertThat(waiter.entry.signalled).isTrue();
                assertThat(received).as("the sharded message arrived").contains(channels.get(i) + " another-service");
                waiter.finish(true);
            }

            subscriptions.sweepIdle(TimeUnit.MINUTES.toNanos(1)); // within the linger: kept
            for (int i = 0; i < channels.size(); i++) {
                assertThat(this.cluster.masters().get(i).call("PUBSUB", "SHARDNUMSUB", channels.get(i)))
                    .endsWith("\n1");
            }
            subscriptions.sweepIdle(0);
            for (int i = 0; i < channels.size(); i++) {
                assertThat(this.cluster.masters().get(i).call("PUBSUB", "SHARDNUMSUB", channels.get(i)))
                    .endsWith("\n0");
            }
        }
        finally {
            subscriptions.close();
        }
    }

    /** One release channel per master, in master order. */
    private List<String> channelsOnEveryMaster() {
        List<String> channels = new ArrayList<>();
        for (RedisNode master : this.cluster.masters()) {
            int i = 0;
            while (this.cluster.masterForKey("distlock:{sharded-" + i + "}:released") != master) {
                i++;
            }
            channels.add("distlock:{sharded-" + i + "}:released");
        }
        return channels;
    }
}
