package dev.distlock.redis;

import static dev.distlock.redis.DataLayoutSnapshot.HOLD_ID;
import static dev.distlock.redis.DataLayoutSnapshot.is;
import static dev.distlock.redis.DataLayoutSnapshot.ttl;
import static dev.distlock.redis.DataLayoutSupport.RETENTION;
import static dev.distlock.redis.DataLayoutSupport.WATCHDOG_LEASE;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Quorum mode's part of docs/data-layout.md: on every master, the member lock in the exclusive lock's layout (its last
 * token raised to the quorum's token) and the quorum fence next to it. See {@link DataLayoutTest}.
 */
@RedisTest
class DataLayoutQuorumTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            this.resources.get(i).close();
        }
    }

    @Test
    void eachMasterHoldsItsMemberLockAndTheQuorumFence(RedisServers servers) throws Exception {
        List<RedisNode> masters = servers.startIndependent(3);
        RedisClients clients = new RedisClients(masters.get(0));
        this.resources.add(clients);
        List<StringRedisTemplate> templates = new ArrayList<>();
        for (RedisNode master : masters) {
            templates.add(clients.template(master.port(), Duration.ofSeconds(2)));
        }
        QuorumLockService locks = QuorumLockService.builder(templates)
            .keyPrefix("dl")
            .watchdogLease(Duration.ofMillis(WATCHDOG_LEASE))
            .tokenRetention(Duration.ofMillis(RETENTION))
            .nodeTimeout(Duration.ofMillis(500))
            .restartGrace(Duration.ZERO)
            .build();
        this.resources.add(locks);

        LockHandle lock = locks.acquire("q", LockOptions.defaults());
        String quorumToken = Long.toString(lock.fencingToken());
        List<String> chains = new ArrayList<>();
        List<String> owners = new ArrayList<>();
        for (StringRedisTemplate master : templates) {
            DataLayoutSnapshot held = DataLayoutSnapshot.read(master);
            // the member's own grant stays the run's first token; its last token is raised to the quorum's
            String[] member = held.groups("dl:{q}:lock", "([0-9a-f]{32}) (" + HOLD_ID + ") " + quorumToken + " (\\d+)");
            owners.add(member[1]);
            chains.add(member[3]);
            assertThat(Long.parseLong(member[3])).isLessThanOrEqualTo(lock.fencingToken());
            DataLayoutSnapshot.expect()
                .string("dl:{q}:lock", is(member[1] + " " + member[2] + " " + quorumToken + " " + member[3]),
                        ttl(WATCHDOG_LEASE))
                .string("dl:{q}:quorum-fence", is(quorumToken), ttl(RETENTION))
                .check(held);
        }
        assertThat(owners).contains(lock.ownerToken());

        lock.release();
        for (int i = 0; i < templates.size(); i++) {
            DataLayoutSnapshot.expect()
                .string("dl:{q}:lock", is(quorumToken + " " + chains.get(i)), ttl(RETENTION))
                .string("dl:{q}:lock:freed", DataLayoutSnapshot.matches(owners.get(i) + " " + HOLD_ID), ttl(RETENTION))
                .string("dl:{q}:quorum-fence", is(quorumToken), ttl(RETENTION))
                .check(DataLayoutSnapshot.read(templates.get(i)));
        }
    }
}
