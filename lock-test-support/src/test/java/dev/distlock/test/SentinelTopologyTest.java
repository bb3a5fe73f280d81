package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Timeout(60)
class SentinelTopologyTest {

    private static final Logger LOG = LoggerFactory.getLogger(SentinelTopologyTest.class);

    private final RedisServers servers = RedisServers.create();
    private final List<Long> pids = new ArrayList<>();

    @AfterEach
    void closeAndCheckEveryProcessIsGone() {
        servers.close();
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid %d alive", pid).isFalse();
        }
    }

    @Test
    void startsAMasterAReplicaAndThreeSentinelsThatSeeThem() {
        SentinelTopology topology = start("orders");

        assertThat(topology.masterName()).isEqualTo("orders");
        assertThat(topology.sentinels()).hasSize(3);
        assertThat(topology.replicas()).hasSize(1);
        assertThat(topology.currentMaster()).isSameAs(topology.master());
        assertThat(topology.sentinelAddresses()).allMatch(address -> address.matches("127\\.0\\.0\\.1:\\d+"));
        for (RedisNode sentinel : topology.sentinels()) {
            assertThat(sentinel.call("SENTINEL", "get-master-addr-by-name", "orders"))
                    .isEqualTo("127.0.0.1\n" + topology.master().port());
            assertThat(sentinel.call("SENTINEL", "CKQUORUM", "orders")).startsWith("OK 3 usable Sentinels");
        }

        RedisNode master = topology.master();
        RedisNode replica = topology.replicas().get(0);
        master.call("SET", "k", "v");
        assertThat(master.call("WAIT", "1", "5000")).isEqualTo("1");
        assertThat(replica.call("GET", "k")).isEqualTo("v");
        assertThat(replica.call("ROLE")).startsWith("slave\n127.0.0.1\n" + master.port());
    }

    @Test
    void killingTheMasterPromotesTheReplica() {
        SentinelTopology topology = start("payments");
        RedisNode replica = topology.replicas().get(0);

        long killed = System.nanoTime();
        topology.master().kill();
        RedisNode promoted = topology.awaitFailover(Duration.ofSeconds(30));
        LOG.info("Sentinel failover took {} ms", (System.nanoTime() - killed) / 1_000_000);

        assertThat(promoted).isSameAs(replica);
        assertThat(topology.currentMaster()).isSameAs(replica);
        assertThat(replica.call("ROLE")).startsWith("master\n");
        assertThat(replica.call("SET", "k", "after failover")).isEqualTo("OK");
        assertThatThrownBy(() -> topology.awaitFailover(Duration.ofMillis(300)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not fail payments over");
    }

    private SentinelTopology start(String name) {
        long begin = System.nanoTime();
        SentinelTopology topology = servers.startSentinelTopology(name);
        LOG.info("{} started in {} ms", topology, (System.nanoTime() - begin) / 1_000_000);
        for (RedisNode node : servers.nodes()) {
            pids.add(node.pid());
        }
        return topology;
    }
}
