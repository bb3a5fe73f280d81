package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** A permit the watchdog finds gone is reported as a permit of a semaphore, not as a lock taken by another owner. */
@RedisTest
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PermitLossReportTest {

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
    void aLostPermitIsReportedAsAPermit() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        LockHandle permit = locks.acquire("pool:9", LockOptions.defaults().withPermits(2));
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        permit.onLeaseLost(lost::complete);

        for (String key : this.redis.call("KEYS", "distlock:{pool:9}:*").split("\n")) {
            this.redis.call("DEL", key);
        }

        String message = lost.get(10, TimeUnit.SECONDS).getMessage();
        assertThat(message).contains("permit").contains("'pool:9'").doesNotContain("taken by another owner");
    }
}
