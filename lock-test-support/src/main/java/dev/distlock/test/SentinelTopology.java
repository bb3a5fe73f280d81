package dev.distlock.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Redis master, one replica and three Sentinels monitoring it, all real redis-server processes (binary backend)
 * on free loopback ports. Start one with {@link RedisServers#startSentinelTopology(String)}; its servers belong to
 * that {@code RedisServers} and stop with it.
 *
 * <p>The Sentinels use quorum {@value #QUORUM}, {@code down-after-milliseconds} {@value #DOWN_AFTER_MILLIS} and
 * {@code failover-timeout} {@value #FAILOVER_TIMEOUT_MILLIS}, {@code sentinel resolve-hostnames no} and announce
 * 127.0.0.1; each writes its {@code sentinel.conf} in its own temp directory (Sentinel rewrites it, and a restarted
 * Sentinel resumes from it). Killing the current master ({@link RedisNode#kill()}) makes them promote the replica,
 * typically 2 to 3 s after the kill; {@link #awaitFailover(Duration)} waits for that. A killed master that is
 * restarted comes back empty and as a master; the Sentinels make it a replica of the new master only about 10 s
 * later (they wait before converting a returning master), so in between it accepts writes nobody will read.
 *
 * <p>The start returns once every Sentinel sees the master, the replica and the two other Sentinels, so a
 * failover can be triggered right away. {@link #master()} and {@link #replicas()} stay the nodes as started;
 * {@link #currentMaster()} asks the Sentinels.
 */
public final class SentinelTopology {

    static final int SENTINELS = 3;
    static final int QUORUM = 2;
    static final int DOWN_AFTER_MILLIS = 1000;
    static final int FAILOVER_TIMEOUT_MILLIS = 3000;

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration QUERY_TIMEOUT = Duration.ofMillis(500);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

    private final String masterName;
    private final RedisNode master;
    private final List<RedisNode> replicas;
    private final List<RedisNode> sentinels;
    private RedisNode knownMaster;

    private SentinelTopology(String masterName, RedisNode master, List<RedisNode> replicas, List<RedisNode> sentinels) {
        this.masterName = masterName;
        this.master = master;
        this.replicas = List.copyOf(replicas);
        this.sentinels = List.copyOf(sentinels);
        this.knownMaster = master;
    }

    static SentinelTopology start(RedisServers servers, String masterName, RedisNodeConfig base) {
        Objects.requireNonNull(masterName, "masterName");
        if (masterName.isEmpty() || !masterName.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("master name must be letters, digits, '.', '_' or '-': " + masterName);
        }
        RedisNodeConfig dataNode = base.backend(RedisBackend.BINARY);
        RedisNodeConfig sentinelNode = RedisNodeConfig.defaults();
        if (base.tls() != null) { // replicas and Sentinels reach the data nodes (and each other) over TLS too
            dataNode = dataNode.directive("tls-replication", "yes");
            sentinelNode = sentinelNode.tls(base.tls().files(), base.tls().clientAuth())
                    .directive("tls-replication", "yes");
        }
        RedisNode master = servers.start(dataNode);
        RedisNode replica = servers.startReplicaOf(master, dataNode);
        String sentinelConfig = String.join("\n",
                "sentinel resolve-hostnames no",
                "sentinel announce-hostnames no",
                "sentinel announce-ip " + FreePort.LOOPBACK,
                "sentinel monitor " + masterName + " " + master.host() + " " + master.port() + " " + QUORUM,
                "sentinel down-after-milliseconds " + masterName + " " + DOWN_AFTER_MILLIS,
                "sentinel failover-timeout " + masterName + " " + FAILOVER_TIMEOUT_MILLIS,
                "sentinel parallel-syncs " + masterName + " 1",
                "");
        List<RedisNode> sentinels = new ArrayList<>();
        for (int i = 0; i < SENTINELS; i++) {
            sentinels.add(servers.start(sentinelNode.sentinel(sentinelConfig)));
        }
        SentinelTopology topology = new SentinelTopology(masterName, master, List.of(replica), sentinels);
        topology.awaitReady();
        return topology;
    }

    /** The name the Sentinels monitor the master under. */
    public String masterName() {
        return masterName;
    }

    /** The master as started (after a failover it is no longer the master; see {@link #currentMaster()}). */
    public RedisNode master() {
        return master;
    }

    /** The replicas as started: one. */
    public List<RedisNode> replicas() {
        return replicas;
    }

    /** The three Sentinels; {@link RedisNode#call} on them runs Sentinel commands. */
    public List<RedisNode> sentinels() {
        return sentinels;
    }

    /** The Sentinels as {@code "127.0.0.1:port"}, e.g. for Spring's {@code RedisSentinelConfiguration}. */
    public List<String> sentinelAddresses() {
        List<String> addresses = new ArrayList<>();
        for (RedisNode sentinel : sentinels) {
            addresses.add(sentinel.host() + ":" + sentinel.port());
        }
        return List.copyOf(addresses);
    }

    /**
     * The node the first answering Sentinel reports as master ({@code SENTINEL get-master-addr-by-name}).
     *
     * @throws IllegalStateException if no Sentinel answers or one names an address outside this topology
     */
    public RedisNode currentMaster() {
        RuntimeException failure = null;
        for (RedisNode sentinel : sentinels) {
            if (!sentinel.isRunning()) {
                continue;
            }
            try {
                return nodeAt(sentinel.call(QUERY_TIMEOUT, "SENTINEL", "get-master-addr-by-name", masterName));
            } catch (RedisCallException | UncheckedIOException e) {
                failure = e;
            }
        }
        throw new IllegalStateException("no Sentinel of " + masterName + " answered", failure);
    }

    /**
     * Waits until every running Sentinel reports the same master, other than the one known before (at the start,
     * or at the last failover this method saw), and that node answers {@code ROLE} as master. Returns it.
     *
     * @throws IllegalStateException with what each Sentinel reports, if that does not happen within {@code timeout}
     */
    public synchronized RedisNode awaitFailover(Duration timeout) {
        RedisNode previous = knownMaster;
        RedisNode[] promoted = new RedisNode[1];
        boolean done = Poll.until(timeout, POLL_INTERVAL, () -> {
            RedisNode reported = agreedMaster();
            promoted[0] = reported;
            return reported != null && reported != previous && isMaster(reported);
        });
        if (!done) {
            throw new IllegalStateException("Sentinels did not fail " + masterName + " over from " + previous
                    + " within " + timeout + ":\n" + describe());
        }
        knownMaster = promoted[0];
        return promoted[0];
    }

    /** What each Sentinel reports about the master, and each data node's role, for failure messages. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (RedisNode sentinel : sentinels) {
            text.append("  sentinel ").append(sentinel.port()).append(": ");
            try {
                Map<String, String> state = Replies.records(
                        sentinel.call(QUERY_TIMEOUT, "SENTINEL", "MASTER", masterName), "name").get(0);
                text.append("master ").append(state.get("ip")).append(':').append(state.get("port"))
                        .append(" flags=").append(state.get("flags"))
                        .append(" replicas=").append(state.get("num-slaves"))
                        .append(" other-sentinels=").append(state.get("num-other-sentinels"));
            } catch (RuntimeException e) {
                text.append(e.getMessage());
            }
            text.append('\n');
        }
        for (RedisNode node : dataNodes()) {
            text.append("  node ").append(node.port()).append(": ");
            try {
                text.append(node.isRunning() ? node.call(QUERY_TIMEOUT, "ROLE").split("\n")[0] : "not running");
            } catch (RuntimeException e) {
                text.append(e.getMessage());
            }
            text.append('\n');
        }
        return text.toString();
    }

    @Override
    public String toString() {
        return "SentinelTopology[" + masterName + ", master " + master.port() + ", replicas " + ports(replicas)
                + ", sentinels " + ports(sentinels) + "]";
    }

    private void awaitReady() {
        if (!Poll.until(READY_TIMEOUT, POLL_INTERVAL, () -> sentinels.stream().allMatch(this::seesEverything))) {
            throw new IllegalStateException("Sentinels of " + this + " did not discover each other and the replica within "
                    + READY_TIMEOUT + ":\n" + describe());
        }
    }

    /** Whether a Sentinel sees the master up, every replica connected and every other Sentinel. */
    private boolean seesEverything(RedisNode sentinel) {
        try {
            Map<String, String> state = Replies.records(
                    sentinel.call(QUERY_TIMEOUT, "SENTINEL", "MASTER", masterName), "name").get(0);
            if (!"master".equals(state.get("flags"))
                    || !Integer.toString(replicas.size()).equals(state.get("num-slaves"))
                    || !Integer.toString(sentinels.size() - 1).equals(state.get("num-other-sentinels"))) {
                return false;
            }
            List<Map<String, String>> known = Replies.records(
                    sentinel.call(QUERY_TIMEOUT, "SENTINEL", "REPLICAS", masterName), "name");
            return known.size() == replicas.size() && known.stream().allMatch(replica -> "slave".equals(replica.get("flags")));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The master every running Sentinel reports, or null while they disagree or one cannot be asked. */
    private RedisNode agreedMaster() {
        RedisNode agreed = null;
        for (RedisNode sentinel : sentinels) {
            if (!sentinel.isRunning()) {
                continue;
            }
            RedisNode reported;
            try {
                reported = nodeAt(sentinel.call(QUERY_TIMEOUT, "SENTINEL", "get-master-addr-by-name", masterName));
            } catch (RuntimeException e) {
                return null;
            }
            if (agreed != null && agreed != reported) {
                return null;
            }
            agreed = reported;
        }
        return agreed;
    }

    private static boolean isMaster(RedisNode node) {
        try {
            return node.isRunning() && node.call(QUERY_TIMEOUT, "ROLE").startsWith("master\n");
        } catch (RedisCallException | UncheckedIOException e) {
            return false;
        }
    }

    /** The data node at the "host\nport" a Sentinel reported. */
    private RedisNode nodeAt(String hostAndPort) {
        if (hostAndPort == null) {
            throw new IllegalStateException("Sentinel does not know master " + masterName);
        }
        String[] parts = hostAndPort.split("\n");
        int port = Integer.parseInt(parts[1]);
        for (RedisNode node : dataNodes()) {
            if (node.port() == port) {
                return node;
            }
        }
        throw new IllegalStateException("Sentinel reports master " + parts[0] + ":" + port + ", not a node of " + this);
    }

    private List<RedisNode> dataNodes() {
        List<RedisNode> nodes = new ArrayList<>();
        nodes.add(master);
        nodes.addAll(replicas);
        return nodes;
    }

    private static List<Integer> ports(List<RedisNode> nodes) {
        List<Integer> ports = new ArrayList<>();
        for (RedisNode node : nodes) {
            ports.add(node.port());
        }
        return ports;
    }
}
