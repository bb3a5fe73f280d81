package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterTopologyTest {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterTopologyTest.class);

    private final RedisServers servers = RedisServers.create();
    private ClusterTopology cluster;

    @BeforeAll
    void startThreeMasters() {
        cluster = start(servers, 3, 0);
    }

    @AfterAll
    void closeServers() {
        servers.close();
    }

    @Test
    void everyNodeIsOkWithAllSlotsAssigned() throws Exception {
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).isEmpty();
        assertThat(cluster.nodes()).containsExactlyElementsOf(cluster.masters());
        assertThat(cluster.seedNodes()).hasSize(3).allMatch(seed -> seed.matches("127\\.0\\.0\\.1:\\d+"));
        for (RedisNode node : cluster.nodes()) {
            Map<String, String> info = Replies.info(node.call("CLUSTER", "INFO"));
            assertThat(info).containsEntry("cluster_state", "ok")
                    .containsEntry("cluster_slots_assigned", "16384")
                    .containsEntry("cluster_slots_ok", "16384")
                    .containsEntry("cluster_known_nodes", "3")
                    .containsEntry("cluster_size", "3");
            assertThat(node.call("CLUSTER", "MYID")).isEqualTo(cluster.nodeId(node));
            String dir = node.call("CONFIG", "GET", "dir").split("\n")[1];
            assertThat(Files.exists(Path.of(dir, "nodes.conf"))).as("nodes.conf in %s", dir).isTrue();
        }
        Set<RedisNode> owners = new HashSet<>();
        for (int slot = 0; slot < ClusterTopology.SLOTS; slot += 97) {
            owners.add(cluster.masterForSlot(slot));
        }
        assertThat(owners).containsExactlyInAnyOrderElementsOf(cluster.masters());
        assertThat(cluster.masterForSlot(0)).isSameAs(cluster.masters().get(0));
        assertThat(cluster.masterForSlot(16383)).isSameAs(cluster.masters().get(2));
    }

    @Test
    void aKeyLandsOnMasterForKeyAndOtherMastersRedirect() {
        for (int i = 0; i < 30; i++) {
            String key = "lock:order-" + i + "-é";
            RedisNode owner = cluster.masterForKey(key);

            assertThat(owner.call("CLUSTER", "KEYSLOT", key)).isEqualTo(Integer.toString(ClusterTopology.slotOf(key)));
            assertThat(owner.call("SET", key, "v" + i)).isEqualTo("OK");
            for (RedisNode other : cluster.masters()) {
                if (other != owner) {
                    assertThatThrownBy(() -> other.call("SET", key, "wrong"))
                            .isInstanceOf(RedisCallException.class)
                            .hasMessage("MOVED " + ClusterTopology.slotOf(key) + " 127.0.0.1:" + owner.port());
                }
            }
            assertThat(owner.call("GET", key)).isEqualTo("v" + i);
        }
    }

    @Test
    void hashTaggedKeysShareASlot() {
        String lock = "{order:42}:lock";
        String fence = "{order:42}:fence";
        RedisNode owner = cluster.masterForKey(lock);

        assertThat(ClusterTopology.slotOf(lock)).isEqualTo(ClusterTopology.slotOf(fence))
                .isEqualTo(ClusterTopology.slotOf("order:42"));
        assertThat(cluster.masterForKey(fence)).isSameAs(owner);
        assertThat(owner.call("MSET", lock, "a", fence, "1")).isEqualTo("OK");
        assertThat(owner.call("EVAL", "return redis.call('INCR', KEYS[2])", "2", lock, fence)).isEqualTo("2");
        String untagged = "order:43:fence";
        if (ClusterTopology.slotOf(untagged) != ClusterTopology.slotOf(lock)) {
            assertThatThrownBy(() -> owner.call("MSET", lock, "a", untagged, "1")).hasMessageStartingWith("CROSSSLOT");
        }
    }

    @Test
    void withReplicasAKilledMasterFailsOver() {
        try (RedisServers own = RedisServers.create()) {
            ClusterTopology replicated = start(own, 3, 1);
            assertThat(replicated.replicas()).hasSize(3);
            assertThat(replicated.nodes()).hasSize(6);
            RedisNode master = replicated.masters().get(1);
            RedisNode replica = replicated.replicasOf(master).get(0);
            assertThat(replica.call("ROLE")).startsWith("slave\n127.0.0.1\n" + master.port());
            String key = keyServedBy(replicated, master);
            master.call("SET", key, "before failover");
            assertThat(master.call("WAIT", "1", "5000")).isEqualTo("1");

            long killed = System.nanoTime();
            master.kill();
            RedisNode promoted = replicated.awaitFailover(master, Duration.ofSeconds(30));
            LOG.info("cluster failover took {} ms", (System.nanoTime() - killed) / 1_000_000);

            assertThat(promoted).isSameAs(replica);
            assertThat(replicated.masterForKey(key)).isSameAs(replica);
            assertThat(replica.call("GET", key)).isEqualTo("before failover");
            assertThat(replica.call("SET", key, "after failover")).isEqualTo("OK");

            long restarted = System.nanoTime();
            master.restart();
            assertThat(Poll.until(Duration.ofSeconds(20), Duration.ofMillis(50),
                    () -> master.call("ROLE").startsWith("slave\n127.0.0.1\n" + replica.port() + "\n")))
                    .as("restarted %s rejoins as a replica of %s", master, replica).isTrue();
            LOG.info("old master rejoined as a replica in {} ms", (System.nanoTime() - restarted) / 1_000_000);
            assertThat(master.call("CLUSTER", "MYID")).isEqualTo(replicated.nodeId(master));
            assertThatThrownBy(() -> replicated.awaitFailover(replicated.masters().get(0), Duration.ofMillis(200)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("took over slots 0-5460");
        }
        assertThatThrownBy(() -> cluster.awaitFailover(cluster.masters().get(0), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no replica");
    }

    private static String keyServedBy(ClusterTopology cluster, RedisNode master) {
        for (int i = 0; ; i++) {
            if (cluster.masterForKey("key-" + i) == master) {
                return "key-" + i;
            }
        }
    }

    private static ClusterTopology start(RedisServers servers, int masters, int replicasPerMaster) {
        long begin = System.nanoTime();
        ClusterTopology cluster = servers.startCluster(masters, replicasPerMaster);
        LOG.info("{} started in {} ms", cluster, (System.nanoTime() - begin) / 1_000_000);
        return cluster;
    }
}
