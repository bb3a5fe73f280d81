package dev.distlock.reliability;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.distlock.test.Await;
import dev.distlock.test.ClusterTopology;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.Replication;

/**
 * The Redis Cluster of a process-mode run on a Cluster ({@code explorer.process.cluster}): three masters with one
 * replica each on 127.0.0.1, {@code cluster-node-timeout} 1 s, and its one fault, {@code failover}: the master of a
 * key's slot paused (SIGSTOP) until its replica has taken over, and a drawn while longer, then resumed; the run goes
 * on once it has rejoined as the new master's replica and caught up (as {@code RedisClusterPausedMasterTest} does).
 * The children reach it through {@link #address()}; their services ask one replica's acknowledgement per grant and
 * renewal (set explicitly: the by-topology default decides none when its first topology read times out).
 */
final class ProcessCluster {

    /** The lock address the children take for a cluster: {@code cluster:host:port,host:port,...}. */
    static final String PREFIX = "cluster:";

    /** How often the children's clients refresh their view of the cluster (and after a redirect). */
    static final Duration REFRESH_PERIOD = Duration.ofSeconds(1);

    /**
     * The client that refreshes its view rarely (and after a redirect), as {@code RedisClusterPausedMasterTest}'s
     * second service: its attempts still go to a resumed master that has not yet learned it was demoted. (Without
     * replica acknowledgements, seed 10 of 15 s found two holders at once with it.)
     */
    static final String SLOW_CLIENT = "s2";

    static final Duration SLOW_REFRESH_PERIOD = Duration.ofSeconds(30);

    /** What the children's services log when they ask one replica's acknowledgement (the mode's promise). */
    static final String ACKNOWLEDGED = "wait for 1 replica(s) to acknowledge";

    private static final String NODE_TIMEOUT_MILLIS = "1000";

    private static final Duration FAILOVER = Duration.ofSeconds(15);

    private final ClusterTopology cluster;

    ProcessCluster(RedisServers servers) {
        this.cluster = servers.startCluster(3, 1);
        for (RedisNode node : this.cluster.nodes()) {
            node.call("CONFIG", "SET", "cluster-node-timeout", NODE_TIMEOUT_MILLIS);
        }
    }

    static Duration refreshPeriod(String client) {
        return client.equals(SLOW_CLIENT) ? SLOW_REFRESH_PERIOD : REFRESH_PERIOD;
    }

    String address() {
        return PREFIX + String.join(",", this.cluster.seedNodes());
    }

    /** The seed nodes of an {@link #address()}. */
    static List<String> seedNodes(String address) {
        return List.of(address.substring(PREFIX.length()).split(","));
    }

    /**
     * Pauses the master of {@code key}'s slot until its replica has taken over, then {@code pastMillis} more, resumes
     * it and waits until it replicates the new master and has caught up. Returns the fault (from the pause to then),
     * or null when the shard had no replica to take over (the fault is skipped).
     */
    ProcessHistory.Fault failover(String key, long pastMillis) throws InterruptedException {
        RedisNode master = this.cluster.masterForSlot(ClusterTopology.slotOf("distlock:{" + key + "}:lock"));
        RedisNode replica = replicaOf(master);
        if (replica == null) {
            return null;
        }
        long paused = System.nanoTime();
        master.pause();
        try {
            Await.until(FAILOVER, () -> isMaster(replica), "the replica of " + master.port() + " took over");
            TimeUnit.MILLISECONDS.sleep(pastMillis);
        }
        finally {
            master.resume();
        }
        RedisNode promoted = this.cluster.awaitFailover(master, FAILOVER);
        Replication.awaitCaughtUp(promoted, List.of(master), FAILOVER); // the old master rejoined as its replica
        return new ProcessHistory.Fault("failover", "master:" + master.port(), paused, System.nanoTime());
    }

    /** The replica that replicates {@code master} now with its link up, or null. */
    private RedisNode replicaOf(RedisNode master) {
        for (RedisNode node : this.cluster.nodes()) {
            if (node != master && node.isRunning() && !isMaster(node)) {
                String info = node.call(Duration.ofMillis(500), "INFO", "replication");
                if (info.contains("master_port:" + master.port() + "\r\n") && info.contains("master_link_status:up")) {
                    return node;
                }
            }
        }
        return null;
    }

    private static boolean isMaster(RedisNode node) {
        try {
            return node.call(Duration.ofMillis(500), "ROLE").startsWith("master\n");
        }
        catch (RuntimeException ex) {
            return false;
        }
    }
}
