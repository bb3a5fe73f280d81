package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** executeLocked releases on every path and reports a lease lost during the work. */
@RedisTest
class ExecuteLockedTest {

    private RedisNode redis;

    private RedisClients clients;

    private RedisLockService locks;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.locks = this.clients.service();
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void returnsTheWorksResultAndReleases() {
        String result = this.locks.executeLocked("work", LockOptions.defaults(), lock -> {
            assertThat(lock.isHeld()).isTrue();
            return "done with token " + lock.fencingToken();
        });
        assertThat(result).startsWith("done with token ");
        assertThat(this.redis.lockField("distlock:{work}:lock", "owner")).isNull();
    }

    @Test
    void releasesWhenTheWorkThrowsAndRethrowsItsCheckedException() {
        assertThatThrownBy(() -> this.locks.executeLocked("work", LockOptions.defaults(), lock -> {
            throw new IOException("disk full");
        })).isInstanceOf(IOException.class).hasMessage("disk full");
        assertThat(this.redis.lockField("distlock:{work}:lock", "owner")).isNull();
    }

    @Test
    void aLeaseLostDuringTheWorkIsReportedInsteadOfTheResult() {
        assertThatThrownBy(() -> this.locks.executeLocked("work",
                LockOptions.defaults().withLeaseTime(Duration.ofMillis(100)), lock -> {
                    Await.until(Duration.ofSeconds(5), () -> !lock.isHeld(), "the lease runs out");
                    Await.until(Duration.ofSeconds(5),
                            () -> "0".equals(this.redis.call("EXISTS", "distlock:{work}:lock")), "Redis expires it");
                    return "too late";
                })).isInstanceOf(LeaseLostException.class);
    }
}
