package dev.distlock.redis.wakeup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisClients;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.WaitStrategy;
import dev.distlock.redis.script.LockType.WakeUp;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The polling wait strategy, the fallback to polling when subscribing fails, and the sharding proxy settings. */
@RedisTest
class WaitStrategyTest {

    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    private static final Pattern EVALSHA_CALLS = Pattern.compile("cmdstat_evalsha:calls=(\\d+)");

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void pollingWaitersOfAnotherServiceGetTheLockSoonAfterTheReleaseWithoutSubscribing() throws Exception {
        RedisLockService holder = this.clients.service(b -> b.watchdogLease(LONG_LEASE));
        RedisLockService waiter = this.clients.service(b -> b.waitStrategy(WaitStrategy.POLLING));
        waiter.verifyAccess(); // opens no subscription
        // holder's mode, waiter's mode: each pair excludes
        LockMode[][] pairs = { { LockMode.EXCLUSIVE, LockMode.EXCLUSIVE }, { LockMode.WRITE, LockMode.READ },
                { LockMode.READ, LockMode.WRITE }, { LockMode.FAIR, LockMode.FAIR } };
        for (LockMode[] pair : pairs) {
            String key = "poll-" + pair[0] + "-" + pair[1];
            LockHandle held = holder.acquire(key, LockOptions.defaults().withMode(pair[0]));
            long before = evalshaCalls();
            CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
                try (LockHandle lock = waiter.acquire(key,
                        LockOptions.defaults().withMode(pair[1]).withWaitTime(Duration.ofSeconds(25)))) {
                    return System.nanoTime();
                }
            });
            Await.until(Duration.ofSeconds(10), () -> evalshaCalls() >= before + 3, "the waiter polled " + key);
            assertThat(this.redis.call("PUBSUB", "CHANNELS", "distlock:*")).as("no subscription").isEmpty();
            long releasedAt = System.nanoTime();
            held.release();
            long acquiredAt = waited.get(20, TimeUnit.SECONDS);
            // the holder's lease had 30 s to run; polling is capped at about a second
            assertThat(Duration.ofNanos(acquiredAt - releasedAt)).as(key).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void aFailingSubscriptionIsRetriedAfterABackOffNotByEveryWaiter() throws Exception {
        AtomicInteger connects = new AtomicInteger();
        ChannelSubscriber refusing = new RefusingSubscriber(connects, 3);
        ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(
                this.clients.template().getRequiredConnectionFactory(), listener -> refusing, "anchor", "me",
                TimeUnit.HOURS.toNanos(1));
        try {
            Waiter first = subscriptions.startWaiting("first", WakeUp.ONE, "a");
            for (int i = 0; i < 20; i++) {
                subscriptions.startWaiting("other-" + i, WakeUp.ONE, "b").finish(false);
                assertThat(first.subscribed()).isFalse();
            }
            assertThat(connects).as("one attempt, then a back-off").hasValue(1);

            Await.until(Duration.ofSeconds(SubscribeBackoff.RETRY_MIN_SECONDS + 5),
                    () -> !first.subscribed() && connects.get() == 2, "a second attempt after the back-off");
            assertThat(first.subscribed()).isFalse();
            assertThat(connects).as("the back-off doubled").hasValue(2);

            Await.until(Duration.ofSeconds(2 * SubscribeBackoff.RETRY_MIN_SECONDS + 5), first::subscribed,
                    "the third attempt subscribes");
            assertThat(connects).hasValue(3);
            first.finish(false);
        }
        finally {
            subscriptions.close();
        }
    }

    @Test
    void aShardingProxyImpliesPollingAndRejectsWhatAProxyDoesNotPass() {
        RedisLockService behindProxy = this.clients.service(b -> b.shardingProxy(true));
        behindProxy.verifyAccess();
        assertThat(this.redis.call("PUBSUB", "CHANNELS", "distlock:*")).isEmpty();
        try (LockHandle lock = behindProxy.acquire("proxied")) {
            assertThat(lock.isHeld()).isTrue();
        }

        assertThatThrownBy(() -> RedisLockService.builder(this.clients.template())
            .shardingProxy(true)
            .waitStrategy(WaitStrategy.PUBSUB)
            .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("POLLING");
        assertThatThrownBy(() -> RedisLockService.builder(this.clients.template())
            .shardingProxy(true)
            .replicaAcknowledgements(1, Duration.ofSeconds(1))
            .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("WAIT");
        assertThatThrownBy(() -> RedisLockService.builder(this.clients.template()).waitStrategy(null))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("waitStrategy");
    }

    private long evalshaCalls() {
        Matcher calls = EVALSHA_CALLS.matcher(this.redis.call("INFO", "commandstats"));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    /** Refuses every connect but the {@code succeedAt}-th. */
    private static final class RefusingSubscriber implements ChannelSubscriber {

        private final AtomicInteger connects;

        private final int succeedAt;

        private boolean open;

        RefusingSubscriber(AtomicInteger connects, int succeedAt) {
            this.connects = connects;
            this.succeedAt = succeedAt;
        }

        @Override
        public boolean isOpen() {
            return this.open;
        }

        @Override
        public void connect(List<String> channels) {
            if (this.connects.incrementAndGet() < this.succeedAt) {
                throw new IllegalStateException("refused, as a proxy without pub/sub would");
            }
            this.open = true;
        }

        @Override
        public void subscribe(String channel) {
        }

        @Override
        public void unsubscribe(List<String> channels) {
        }

        @Override
        public void close() {
            this.open = false;
        }
    }
}
