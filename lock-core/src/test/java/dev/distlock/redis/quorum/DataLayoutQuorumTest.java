package dev.distlock.redis.quorum;

import static dev.distlock.redis.DataLayoutSnapshot.HOLD_ID;
import static dev.distlock.redis.DataLayoutSnapshot.is;
import static dev.distlock.redis.DataLayoutSnapshot.ttl;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.DataLayoutSnapshot;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Quorum mode's part of docs/data-layout.md: on every master, the member lock in the exclusive lock's layout (its last
 * token raised to the quorum's token) and the quorum fence next to it. See dev.distlock.redis.DataLayoutTest, whose
 * expiry lengths this uses too (watchdog lease 20 s, token retention 13 s). In the quorum package, so that the Valkey
 * run leaves it out with the other quorum tests.
 */
@RedisTest
class DataLayoutQuorumTest {

    private static final long WATCHDOG_LEASE = 20_000;

    private static final long RETENTION = 13_000;

    private QuorumClients clients;

    @AfterEach
    void tearDown() throws Exception {
        if (this.clients != null) {
            this.clients.close();
        }
    }

    @Test
    void eachMasterHoldsItsMemberLockAndTheQuorumFence(RedisServers servers) throws Exception {
        List<RedisNode> masters = servers.startIndependent(3);
        this.clients = new QuorumClients(masters);
        QuorumLockService locks = this.clients.service(builder -> builder.keyPrefix("dl")
            .watchdogLease(Duration.ofMillis(WATCHDOG_LEASE))
            .tokenRetention(Duration.ofMillis(RETENTION)));
        List<StringRedisTemplate> templates = this.clients.templates();

        LockHandle lock = locks.acquire("q", LockOptions.defaults());
        String quorumToken = Long.toString(lock.fencingToken());
        List<String> chains = new ArrayList<>();
        List<String> owners = new ArrayList<>();
        for (StringRedisTemplate master : templates) {
            DataLayoutSnapshot held = DataLayoutSnapshot.read(master);
            // the member's own grant stays the run's first token; its last token is raised to the quorum's
            Map<String, String> fields = held.entry("dl:{q}:lock").fields();
            String owner = fields.get("owner");
            String chain = fields.get("chain");
            assertThat(owner).matches("[0-9a-f]{32}");
            owners.add(owner);
            chains.add(chain);
            assertThat(Long.parseLong(chain)).isLessThanOrEqualTo(lock.fencingToken());
            DataLayoutSnapshot.expect()
                .hash("dl:{q}:lock", ttl(WATCHDOG_LEASE), is("owner"), is(owner), is("holds"), is("1"), is(owner),
                        is("1"), DataLayoutSnapshot.matches(HOLD_ID), is("w"), is("fence"), is(quorumToken),
                        is("chain"), is(chain))
                .string("dl:{q}:quorum-fence", is(quorumToken), ttl(RETENTION))
                .check(held);
        }
        assertThat(owners).contains(lock.ownerToken());

        lock.release();
        for (int i = 0; i < templates.size(); i++) {
            DataLayoutSnapshot.expect()
                .hash("dl:{q}:lock", ttl(RETENTION), is("fence"), is(quorumToken), is("chain"), is(chains.get(i)))
                .string("dl:{q}:lock:freed", DataLayoutSnapshot.matches(owners.get(i) + " " + HOLD_ID), ttl(RETENTION))
                .string("dl:{q}:quorum-fence", is(quorumToken), ttl(RETENTION))
                .check(DataLayoutSnapshot.read(templates.get(i)));
        }
    }
}
