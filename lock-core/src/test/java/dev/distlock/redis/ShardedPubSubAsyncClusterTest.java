package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.DefaultEventLoopGroupProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.script.ShardedPubSub;
import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * A fresh service's first calls on a Redis Cluster are non-blocking, the release chained from a completion stage that
 * a Redis reply completes (so it runs on a Lettuce I/O thread): the choice between sharded and classic pub/sub must not
 * block that thread, and the release's message must still reach a waiter of another service subscribed by
 * {@code SSUBSCRIBE}. The command timeout is 5 s, the deadlines 2 s: a blocked I/O thread shows as a timeout. Each
 * service's client has one I/O thread, so that a blocked one is the one that must read the reply (with several, the
 * reply may come on another, and the defect shows only by chance).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ShardedPubSubAsyncClusterTest {

    private final RedisServers servers = RedisServers.create();

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<RedisLockService> services = new ArrayList<>();

    private final List<DefaultEventLoopGroupProvider> eventLoops = new ArrayList<>();

    private final List<ClientResources> resources = new ArrayList<>();

    private ClusterTopology cluster;

    @BeforeAll
    void startCluster() {
        this.cluster = this.servers.startCluster(3, 0);
    }

    @AfterAll
    void stop() {
        this.services.forEach(RedisLockService::close);
        this.factories.forEach(LettuceConnectionFactory::destroy);
        this.resources.forEach(resources -> resources.shutdown(0, 2, TimeUnit.SECONDS));
        this.eventLoops.forEach(eventLoop -> eventLoop.shutdown(0, 2, TimeUnit.SECONDS)); // provided: not shut with them
        this.servers.close();
    }

    /** A fresh service on its own connection factory: nothing of it has run yet. */
    private RedisLockService freshService() {
        RedisLockService service = RedisLockService.builder(freshTemplate()).restartGrace(Duration.ZERO).build();
        this.services.add(service);
        return service;
    }

    private StringRedisTemplate freshTemplate() {
        DefaultEventLoopGroupProvider oneIoThread = new DefaultEventLoopGroupProvider(1); // the builder's minimum is 2
        this.eventLoops.add(oneIoThread);
        ClientResources resources = DefaultClientResources.builder().eventLoopGroupProvider(oneIoThread).build();
        this.resources.add(resources);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisClusterConfiguration(this.cluster.seedNodes()), LettuceClientConfiguration.builder()
                    .clientResources(resources)
                    .commandTimeout(Duration.ofSeconds(5))
                    .build());
        factory.afterPropertiesSet();
        factory.start();
        this.factories.add(factory);
        return new StringRedisTemplate(factory);
    }

    @Test
    void firstReleaseChainedFromTheAcquireCompletesPromptly() throws Exception {
        RedisLockService locks = freshService();
        String key = "first-release";
        long start = System.nanoTime();

        locks.async().acquire(key, LockOptions.defaults())
            .thenCompose(LockHandle::releaseAsync)
            .get(2, TimeUnit.SECONDS);

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("acquire and release, ms")
            .isLessThan(2000);
        assertThat(locks.acquire(key, LockOptions.defaults().withWaitTime(Duration.ZERO)).isHeld())
            .as("the lock is free again").isTrue();
    }

    @Test
    void firstReleaseOnAnIoThreadWakesAShardedWaiterOfAnotherService() throws Exception {
        String key = "first-wake-up";
        String other = "other";
        RedisLockService holder = freshService();
        RedisLockService waiter = freshService();
        LockHandle held = holder.async().acquire(key, LockOptions.defaults()).get(2, TimeUnit.SECONDS);

        CompletableFuture<LockHandle> waiting = waiter.async()
            .acquire(key, LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
        RedisNode master = this.cluster.masterForKey("distlock:{" + key + "}:lock");
        Await.until(Duration.ofSeconds(10), () -> master.call("PUBSUB", "SHARDNUMSUB",
                "distlock:{" + key + "}:released").endsWith("\n1"), "the waiter subscribes by SSUBSCRIBE on its master");

        // released from the completion of another non-blocking call: on the I/O thread that read its reply
        long start = System.nanoTime();
        holder.async().tryAcquire(other, LockOptions.defaults())
            .thenCompose(taken -> taken.orElseThrow().releaseAsync().thenCompose(ignored -> held.releaseAsync()))
            .get(2, TimeUnit.SECONDS);
        // woken by the release's message, not by its re-check at most 5 s later
        LockHandle next = waiting.get(2, TimeUnit.SECONDS);

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("release to wake-up, ms")
            .isLessThan(2000);
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        next.release();
    }

    /**
     * Undecided (as when Redis could not be asked at build), asked on a Lettuce I/O thread: answers classic pub/sub at
     * once, without blocking that thread, and asks Redis on a thread of its own, after which the I/O thread gets the
     * real answer too.
     */
    @Test
    void undecidedOnAnIoThreadAnswersClassicAtOnceAndAsksOnAThreadOfItsOwn() throws Exception {
        StringRedisTemplate template = freshTemplate();
        ShardedPubSub undecided = new ShardedPubSub(template, "distlock:{probe}:released");

        RedisLockService locks = RedisLockService.builder(template).restartGrace(Duration.ZERO).build();
        this.services.add(locks);

        Optional<Boolean> first = Optional.empty();
        for (int i = 0; i < 100 && first.isEmpty(); i++) { // until a reply completes the stage on the I/O thread
            long start = System.nanoTime();
            first = askedOnIoThread(locks, undecided).get(2, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms").isLessThan(2000);
        }

        assertThat(first).as("the answer on an I/O thread before Redis was asked: classic pub/sub")
            .contains(false);
        Await.until(Duration.ofSeconds(5), () -> askedOnIoThread(locks, undecided).join().orElse(false),
                "the probe on a thread of its own answers sharded pub/sub, on the I/O thread too");
    }

    /** The answer of {@code pubSub} on the thread that completes a non-blocking call, if that is a Lettuce thread. */
    private static CompletableFuture<Optional<Boolean>> askedOnIoThread(RedisLockService locks, ShardedPubSub pubSub) {
        return locks.async().tryAcquire("undecided", LockOptions.defaults()).thenApply(handle -> {
            handle.orElseThrow().releaseAsync();
            return Thread.currentThread().getName().startsWith("lettuce-") ? Optional.of(pubSub.enabled())
                    : Optional.empty();
        });
    }
}
