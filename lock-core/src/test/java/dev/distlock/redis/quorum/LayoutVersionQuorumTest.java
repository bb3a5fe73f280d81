package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockLayoutException;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * The quorum service fails a call that meets a later layout's data on a master with that master's
 * {@link LockLayoutException} (not as a master that did not answer), and keeps no grant on the others.
 */
@RedisTest
class LayoutVersionQuorumTest {

    private QuorumClients clients;

    @AfterEach
    void tearDown() throws Exception {
        if (this.clients != null) {
            this.clients.close();
        }
    }

    @Test
    void aMasterHoldingALaterLayoutFailsTheCallNamingBothAndNoGrantStays(RedisServers servers) {
        List<RedisNode> masters = servers.startIndependent(3);
        this.clients = new QuorumClients(masters);
        QuorumLockService locks = this.clients.service(builder -> builder.keyPrefix("dl"));
        List<StringRedisTemplate> templates = this.clients.templates();
        templates.get(1).opsForHash().putAll("dl:{q}:lock", Map.of("fence", "1700000000000001", "layout", "2"));
        templates.get(1).expire("dl:{q}:lock", Duration.ofMinutes(1));

        assertThatThrownBy(() -> locks.acquire("q", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))))
            .isInstanceOf(LockLayoutException.class)
            .hasMessageContaining("layout 2");
        for (int i : new int[] { 0, 2 }) { // the grants the other masters gave were released: each is free
            try (RedisLockService master = RedisLockService.builder(templates.get(i)).keyPrefix("dl").build()) {
                Await.until(Duration.ofSeconds(5), () -> master.tryAcquire("q").map(held -> {
                    held.release();
                    return true;
                }).orElse(false), "master " + i + " frees the quorum's grant");
            }
        }
        assertThat(templates.get(1).opsForHash().entries("dl:{q}:lock")).containsEntry("layout", "2")
            .doesNotContainKey("owner");
    }
}
