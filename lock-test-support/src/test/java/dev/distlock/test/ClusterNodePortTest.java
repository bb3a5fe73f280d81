package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster node listens on its port and on its bus port, 10000 higher: a port whose bus port is taken, or
 * would be above 65535, cannot take a cluster node (a 30-minute soak of the fault explorer died on the first, "bind:
 * Address in use ... (cluster), aborting"; one JVM's free ports rise past 55535 as it picks them).
 */
class ClusterNodePortTest {

    private static final RedisNodeConfig CLUSTER_NODE = RedisNodeConfig.defaults()
            .backend(RedisBackend.BINARY)
            .directive("cluster-enabled", "yes")
            .directive("cluster-config-file", "nodes.conf");

    @Test
    void aClusterNodeSkipsPortsWhoseBusPortIsTakenOrTooHigh() throws IOException {
        try (ServerSocket bus = new ServerSocket(0, 1, InetAddress.getByName(FreePort.LOOPBACK))) {
            int busTaken = bus.getLocalPort() - 10_000;
            int tooHigh = 55_536;
            Iterator<Integer> offered = List.of(busTaken, tooHigh).iterator();

            RedisNode node = BinaryRedisNode.start(CLUSTER_NODE, () -> offered.hasNext() ? offered.next() : FreePort.pick());
            try {
                assertThat(node.port()).isNotIn(busTaken, tooHigh);
                assertThat(node.call("CLUSTER", "MYID")).hasSize(40);
            } finally {
                node.close();
            }
        }
    }
}
