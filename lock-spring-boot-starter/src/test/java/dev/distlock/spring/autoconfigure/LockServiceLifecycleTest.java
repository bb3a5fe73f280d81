package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.spring.LockContexts;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/** Startup checks Redis's permissions; shutdown closes the lock service before the Redis connections. */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class LockServiceLifecycleTest {

    @Test
    void aRedisUserMissingAPermissionStopsStartupNamingTheGrant(RedisServers servers) {
        RedisNode redis = servers.start(RedisNodeConfig.defaults().requirePass("admin-secret"));
        redis.call("ACL", "SETUSER", "reader", "reset", "on", ">reader-secret", "~distlock:*", "+@connection",
                "+evalsha", "+eval", "+hget", "+pttl");
        LockContexts.runner(redis)
            .withPropertyValues("spring.data.redis.username=reader", "spring.data.redis.password=reader-secret")
            .run(context -> assertThat(context).hasFailed()
                .getFailure()
                .hasStackTraceContaining("IllegalStateException: The Redis user may not run a command the lock needs")
                .hasStackTraceContaining("ACL SETUSER <user> ~distlock:* &distlock:*"));
        LockContexts.runner(redis)
            .withPropertyValues("spring.data.redis.username=reader", "spring.data.redis.password=reader-secret",
                    "distlock.verify-access-on-startup=false")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void anUnreachableRedisAtStartupIsLoggedAndTheLocksReportItPerCall(CapturedOutput output) throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            closedPort = socket.getLocalPort();
        }
        LockContexts.runner(closedPort)
            .withPropertyValues("spring.data.redis.timeout=500ms", "spring.data.redis.connect-timeout=500ms")
            .run(context -> assertThat(context).hasNotFailed());
        assertThat(output).contains("Could not check Redis permissions for distlock at startup");
    }

    @Test
    void shutdownClosesTheSubscriptionBeforeTheRedisConnections(RedisNode redis, CapturedOutput output) {
        LockContexts.runner(redis).run(context -> {
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.acquire("shutdown");
            CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                    () -> locks.acquire("shutdown", LockOptions.defaults().withOwner(new Object())
                        .withWaitTime(Duration.ofSeconds(20))));
            long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!redis.call("PUBSUB", "NUMSUB", "distlock:{shutdown}:released").endsWith("\n1")
                    && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            held.release();
            waiter.get(20, TimeUnit.SECONDS).release();
        });
        assertThat(output).doesNotContain("Connection is already closed");
    }
}
