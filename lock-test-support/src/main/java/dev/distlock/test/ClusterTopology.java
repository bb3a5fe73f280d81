package dev.distlock.test;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A Redis Cluster of real redis-server processes (binary backend) on free loopback ports: {@code masters} masters
 * with {@code replicasPerMaster} replicas each. Start one with {@link RedisServers#startCluster(int, int)}; its
 * nodes belong to that {@code RedisServers} and stop with it.
 *
 * <p>Nodes run with {@code cluster-enabled yes}, {@code cluster-node-timeout} {@value #NODE_TIMEOUT_MILLIS} and
 * {@code cluster-config-file nodes.conf} in their own temp directory. The cluster is assembled with plain commands,
 * as {@code redis-cli --cluster create} would: {@code CLUSTER SET-CONFIG-EPOCH} and {@code CLUSTER ADDSLOTSRANGE}
 * on each master (16384 slots split into equal consecutive ranges, master 0 first), {@code CLUSTER MEET} from the
 * first node to every other, then {@code CLUSTER REPLICATE} on each replica. The start returns once every node
 * reports {@code cluster_state:ok} with all 16384 slots assigned and ok, every node sees every other, every replica
 * has synced with its master, and every node agrees on who replicates whom.
 *
 * <p>A killed master is replaced by one of its replicas after the node timeout plus an election, typically 3 to
 * 5 s; {@link #awaitFailover(RedisNode, Duration)} waits for that. A restarted node comes back with no data but
 * with its {@code nodes.conf}, so it rejoins the cluster as the same node: a former master becomes a replica of
 * its successor within a fraction of a second. {@link #masters()} and {@link #replicas()} stay the nodes as started; {@link #masterForSlot(int)}
 * asks the cluster.
 */
public final class ClusterTopology {

    /** Number of hash slots in a Redis Cluster. */
    public static final int SLOTS = 16384;

    static final int NODE_TIMEOUT_MILLIS = 2000;

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    /** A master as started with its replicas and slot range; a failover moves the range to another member. */
    private record Shard(int firstSlot, int lastSlot, List<RedisNode> members) {
    }

    private final List<RedisNode> masters;
    private final List<RedisNode> replicas;
    private final List<Shard> shards;
    private final Map<RedisNode, String> ids;

    private ClusterTopology(List<RedisNode> masters, List<RedisNode> replicas, List<Shard> shards,
            Map<RedisNode, String> ids) {
        this.masters = List.copyOf(masters);
        this.replicas = List.copyOf(replicas);
        this.shards = List.copyOf(shards);
        this.ids = Map.copyOf(ids);
    }

    static ClusterTopology start(RedisServers servers, int masterCount, int replicasPerMaster, RedisNodeConfig base) {
        if (masterCount < 1 || masterCount > SLOTS) {
            throw new IllegalArgumentException("masters must be between 1 and " + SLOTS + ": " + masterCount);
        }
        if (replicasPerMaster < 0) {
            throw new IllegalArgumentException("replicasPerMaster must not be negative: " + replicasPerMaster);
        }
        RedisNodeConfig config = base.backend(RedisBackend.BINARY)
                .directive("cluster-enabled", "yes")
                .directive("cluster-config-file", "nodes.conf")
                .directive("cluster-node-timeout", Integer.toString(NODE_TIMEOUT_MILLIS));
        if (base.tls() != null) {
            config = config.directive("tls-cluster", "yes").directive("tls-replication", "yes");
        }
        List<RedisNode> masters = new ArrayList<>();
        List<RedisNode> replicas = new ArrayList<>();
        List<Shard> shards = new ArrayList<>();
        for (int i = 0; i < masterCount; i++) {
            masters.add(servers.start(config));
        }
        for (int i = 0; i < masterCount; i++) {
            List<RedisNode> members = new ArrayList<>(List.of(masters.get(i)));
            for (int r = 0; r < replicasPerMaster; r++) {
                RedisNode replica = servers.start(config);
                replicas.add(replica);
                members.add(replica);
            }
            shards.add(new Shard(i * SLOTS / masterCount, (i + 1) * SLOTS / masterCount - 1, members));
        }
        Map<RedisNode, String> ids = new HashMap<>();
        for (RedisNode node : nodes(masters, replicas)) {
            ids.put(node, node.call("CLUSTER", "MYID"));
        }
        ClusterTopology cluster = new ClusterTopology(masters, replicas, shards, ids);
        cluster.assemble();
        return cluster;
    }

    /**
     * The slot Redis Cluster maps {@code key} to: CRC16 of the key's UTF-8 bytes modulo 16384, where a key with a
     * hash tag ({@code {...}}, the first '{' and the first '}' after it, with something in between) is hashed by
     * the tag's content only, so {@code "{user:1}.a"} and {@code "{user:1}.b"} share a slot.
     */
    public static int slotOf(String key) {
        return slotOf(key.getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #slotOf(String)} for a binary key. */
    public static int slotOf(byte[] key) {
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) {
                return Crc16.of(key, open + 1, close) & (SLOTS - 1);
            }
        }
        return Crc16.of(key) & (SLOTS - 1);
    }

    /** The masters as started, in slot order: master i served the i-th range of slots. */
    public List<RedisNode> masters() {
        return masters;
    }

    /** The replicas as started: those of master 0 first, then those of master 1, and so on. */
    public List<RedisNode> replicas() {
        return replicas;
    }

    /** The replicas {@code master} was started with (empty for a node that did not start as a master). */
    public List<RedisNode> replicasOf(RedisNode master) {
        for (Shard shard : shards) {
            if (shard.members().get(0) == master) {
                return List.copyOf(shard.members().subList(1, shard.members().size()));
            }
        }
        return List.of();
    }

    /** All nodes, masters first, then replicas. */
    public List<RedisNode> nodes() {
        return nodes(masters, replicas);
    }

    /** Every node as {@code "127.0.0.1:port"}, e.g. for Spring's {@code RedisClusterConfiguration}. */
    public List<String> seedNodes() {
        List<String> seeds = new ArrayList<>();
        for (RedisNode node : nodes()) {
            seeds.add(node.host() + ":" + node.port());
        }
        return List.copyOf(seeds);
    }

    /** The cluster node id of {@code node} ({@code CLUSTER MYID}); it survives restarts. */
    public String nodeId(RedisNode node) {
        String id = ids.get(node);
        if (id == null) {
            throw new IllegalArgumentException(node + " is not a node of this cluster");
        }
        return id;
    }

    /**
     * The master that serves {@code slot} now, as the first answering node (masters first) sees it in
     * {@code CLUSTER NODES}; after a failover, once {@link #awaitFailover} returned, every node agrees.
     */
    public RedisNode masterForSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be between 0 and " + (SLOTS - 1) + ": " + slot);
        }
        RuntimeException failure = null;
        for (RedisNode node : nodes()) {
            if (!node.isRunning()) {
                continue;
            }
            ClusterView view;
            try {
                view = view(node);
            } catch (RedisCallException | UncheckedIOException e) {
                failure = e;
                continue;
            }
            ClusterView.Entry master = view.masterOf(slot);
            if (master == null) {
                throw new IllegalStateException("no master serves slot " + slot + " according to " + node);
            }
            return nodeWithId(master.id());
        }
        throw new IllegalStateException("no node of " + this + " answered", failure);
    }

    /** The master that serves {@code key}'s slot now; see {@link #slotOf(String)} and {@link #masterForSlot(int)}. */
    public RedisNode masterForKey(String key) {
        return masterForSlot(slotOf(key));
    }

    /**
     * Waits until one of the nodes {@code killedMaster} was started with (or, after an earlier failover, the other
     * members of its shard) answers {@code ROLE} as master, and every other running node reports
     * {@code cluster_state:ok} and names it as the master of the shard's slots. Returns the promoted node.
     *
     * @throws IllegalArgumentException if {@code killedMaster} has no replicas
     * @throws IllegalStateException    with each node's view, if that does not happen within {@code timeout}
     */
    public RedisNode awaitFailover(RedisNode killedMaster, Duration timeout) {
        Shard shard = shardOf(killedMaster);
        List<RedisNode> candidates = new ArrayList<>(shard.members());
        candidates.remove(killedMaster);
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException(killedMaster + " has no replica to fail over to: start the cluster"
                    + " with replicasPerMaster > 0");
        }
        RedisNode[] promoted = new RedisNode[1];
        boolean done = Poll.until(timeout, POLL_INTERVAL, () -> {
            for (RedisNode candidate : candidates) {
                if (isMaster(candidate) && allAgree(shard.firstSlot(), candidate, killedMaster)) {
                    promoted[0] = candidate;
                    return true;
                }
            }
            return false;
        });
        if (!done) {
            throw new IllegalStateException("no replica of " + killedMaster + " took over slots " + shard.firstSlot()
                    + "-" + shard.lastSlot() + " within " + timeout + ":\n" + describe());
        }
        return promoted[0];
    }

    /** Each node's role and cluster state, and one node's {@code CLUSTER NODES}, for failure messages. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        String clusterNodes = null;
        for (RedisNode node : nodes()) {
            text.append("  node ").append(node.port()).append(' ').append(ids.get(node)).append(": ");
            if (!node.isRunning()) {
                text.append("not running\n");
                continue;
            }
            try {
                Map<String, String> info = Replies.info(node.call(QUERY_TIMEOUT, "CLUSTER", "INFO"));
                text.append(node.call(QUERY_TIMEOUT, "ROLE").split("\n")[0])
                        .append(" state=").append(info.get("cluster_state"))
                        .append(" slots_ok=").append(info.get("cluster_slots_ok"))
                        .append(" known_nodes=").append(info.get("cluster_known_nodes"));
                if (clusterNodes == null) {
                    clusterNodes = "  CLUSTER NODES on " + node.port() + ":\n"
                            + node.call(QUERY_TIMEOUT, "CLUSTER", "NODES").replaceAll("(?m)^", "    ");
                }
            } catch (RuntimeException e) {
                text.append(e.getMessage());
            }
            text.append('\n');
        }
        return clusterNodes == null ? text.toString() : text + clusterNodes;
    }

    @Override
    public String toString() {
        List<Integer> ports = new ArrayList<>();
        for (RedisNode node : nodes()) {
            ports.add(node.port());
        }
        return "ClusterTopology[" + masters.size() + " masters, " + replicas.size() + " replicas, ports " + ports + "]";
    }

    private void assemble() {
        for (int i = 0; i < shards.size(); i++) {
            Shard shard = shards.get(i);
            RedisNode master = shard.members().get(0);
            master.call("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            master.call("CLUSTER", "ADDSLOTSRANGE", Integer.toString(shard.firstSlot()), Integer.toString(shard.lastSlot()));
        }
        RedisNode first = masters.get(0);
        for (RedisNode node : nodes()) {
            if (node != first) {
                first.call("CLUSTER", "MEET", node.host(), Integer.toString(node.port()));
            }
        }
        await("every node to know every other", () -> nodes().stream().allMatch(this::knowsEveryone));
        for (Shard shard : shards) {
            String masterId = ids.get(shard.members().get(0));
            for (RedisNode replica : shard.members().subList(1, shard.members().size())) {
                replica.call("CLUSTER", "REPLICATE", masterId);
            }
        }
        await("cluster_state:ok with all slots on every node, and replicas in sync",
                () -> nodes().stream().allMatch(this::isReady));
    }

    private void await(String what, BooleanSupplier condition) {
        if (!Poll.until(READY_TIMEOUT, POLL_INTERVAL, condition)) {
            throw new IllegalStateException(this + " did not reach " + what + " within " + READY_TIMEOUT + ":\n"
                    + describe());
        }
    }

    /** Whether {@code node} lists every node of the cluster, none of them still in handshake. */
    private boolean knowsEveryone(RedisNode node) {
        try {
            ClusterView view = view(node);
            return ids.values().stream().allMatch(id -> {
                ClusterView.Entry entry = view.node(id);
                return entry != null && !entry.flags().contains("handshake") && !entry.flags().contains("noaddr");
            });
        } catch (RedisCallException | UncheckedIOException e) {
            return false;
        }
    }

    /** Whether {@code node} reports the whole cluster ok, and sees every master and replica as started. */
    private boolean isReady(RedisNode node) {
        try {
            Map<String, String> info = Replies.info(node.call(QUERY_TIMEOUT, "CLUSTER", "INFO"));
            if (!"ok".equals(info.get("cluster_state"))
                    || !Integer.toString(SLOTS).equals(info.get("cluster_slots_assigned"))
                    || !Integer.toString(SLOTS).equals(info.get("cluster_slots_ok"))
                    || !Integer.toString(ids.size()).equals(info.get("cluster_known_nodes"))) {
                return false;
            }
            ClusterView view = view(node);
            for (Shard shard : shards) {
                String masterId = ids.get(shard.members().get(0));
                ClusterView.Entry master = view.masterOf(shard.firstSlot());
                if (master == null || !master.id().equals(masterId) || master.isFailed()) {
                    return false;
                }
                for (RedisNode replica : shard.members().subList(1, shard.members().size())) {
                    ClusterView.Entry entry = view.node(ids.get(replica));
                    if (entry == null || !entry.flags().contains("slave") || !masterId.equals(entry.masterId())) {
                        return false;
                    }
                }
            }
            return masters.contains(node)
                    || "up".equals(Replies.info(node.call(QUERY_TIMEOUT, "INFO", "replication")).get("master_link_status"));
        } catch (RedisCallException | UncheckedIOException e) {
            return false;
        }
    }

    /** Whether every running node but {@code excluded} is ok and names {@code master} for {@code slot}. */
    private boolean allAgree(int slot, RedisNode master, RedisNode excluded) {
        String masterId = ids.get(master);
        for (RedisNode node : nodes()) {
            if (node == excluded || !node.isRunning()) {
                continue;
            }
            try {
                if (!"ok".equals(Replies.info(node.call(QUERY_TIMEOUT, "CLUSTER", "INFO")).get("cluster_state"))) {
                    return false;
                }
                ClusterView.Entry entry = view(node).masterOf(slot);
                if (entry == null || !entry.id().equals(masterId)) {
                    return false;
                }
            } catch (RedisCallException | UncheckedIOException e) {
                return false;
            }
        }
        return true;
    }

    private static boolean isMaster(RedisNode node) {
        try {
            return node.isRunning() && node.call(QUERY_TIMEOUT, "ROLE").startsWith("master\n");
        } catch (RedisCallException | UncheckedIOException e) {
            return false;
        }
    }

    private static ClusterView view(RedisNode node) {
        return ClusterView.parse(node.call(QUERY_TIMEOUT, "CLUSTER", "NODES"));
    }

    private Shard shardOf(RedisNode node) {
        for (Shard shard : shards) {
            if (shard.members().contains(node)) {
                return shard;
            }
        }
        throw new IllegalArgumentException(node + " is not a node of " + this);
    }

    private RedisNode nodeWithId(String id) {
        for (Map.Entry<RedisNode, String> entry : ids.entrySet()) {
            if (entry.getValue().equals(id)) {
                return entry.getKey();
            }
        }
        throw new IllegalStateException("node id " + id + " is not a node of " + this);
    }

    private static List<RedisNode> nodes(List<RedisNode> masters, List<RedisNode> replicas) {
        List<RedisNode> nodes = new ArrayList<>(masters);
        nodes.addAll(replicas);
        return List.copyOf(nodes);
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }
}
