package dev.distlock.test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Starts Redis servers for a test and owns them: {@link #close()} stops every node it started, even
 * if stopping one of them fails. Use one per test class or per test, in try-with-resources or via
 * {@link RedisExtension}. Independent of {@code close()}, a JVM shutdown hook kills any redis-server
 * child process still running, so a crashed run leaves none behind.
 *
 * <p>It also starts topologies of real processes on loopback ports, whose processes it owns the same way:
 * {@link #startSentinelTopology(String) Sentinel}, {@link #startCluster(int, int) Redis Cluster},
 * {@link #startIndependent(int) independent masters} and {@link #startTwemproxy(int) Twemproxy}.
 *
 * <p>Nodes use the backend chosen by {@link RedisBackend#configured()} unless their config overrides
 * it; replicas and the nodes of Sentinel, Cluster and Twemproxy topologies always use the binary. The binary is the
 * server executable chosen for the whole run by the system property {@value #SERVER_PROPERTY} (or the environment
 * variable {@code DISTLOCK_TEST_REDIS_SERVER}), e.g. {@code -Ddistlock.test.redis-server=/usr/bin/valkey-server},
 * by default the static redis-server 7.0.15 of {@code org.signal:embedded-redis}; see {@link #server()}. Thread-safe.
 */
public final class RedisServers implements AutoCloseable {

    /** Everything started here and not yet closed, in start order: nodes and other processes (a Twemproxy). */
    private final List<AutoCloseable> owned = new ArrayList<>();
    private boolean closed;

    /** The system property that chooses the server executable of the run (a path, or a name on PATH). */
    public static final String SERVER_PROPERTY = RedisBinary.PROPERTY;

    private RedisServers() {
    }

    /**
     * Name and version of the server the binary backend runs in this run, from its {@code --version}: e.g.
     * "Redis 7.0.15" or "Valkey 8.0.1". Nodes whose config names their own executable may run another.
     *
     * @throws IllegalStateException when {@value #SERVER_PROPERTY} names no executable file
     */
    public static String server() {
        return RedisBinary.server();
    }

    public static RedisServers create() {
        return new RedisServers();
    }

    /** Starts a server with {@link RedisNodeConfig#defaults()}. */
    public RedisNode start() {
        return start(RedisNodeConfig.defaults());
    }

    /** Starts a server and waits until it answers PING (bounded by the config's start timeout). */
    public RedisNode start(RedisNodeConfig config) {
        ensureOpen();
        return own(Launcher.launch(config));
    }

    /** Starts {@code count} unrelated servers, e.g. for Redlock-style quorums; each has its own port and data. */
    public List<RedisNode> startIndependent(int count) {
        return startIndependent(count, RedisNodeConfig.defaults());
    }

    /** Starts {@code count} unrelated servers with the same config. */
    public List<RedisNode> startIndependent(int count, RedisNodeConfig config) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be positive: " + count);
        }
        List<RedisNode> started = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            started.add(start(config));
        }
        return List.copyOf(started);
    }

    /** Starts a binary replica of {@code master}, see {@link #startReplicaOf(RedisNode, RedisNodeConfig)}. */
    public RedisNode startReplicaOf(RedisNode master) {
        return startReplicaOf(master, RedisNodeConfig.defaults());
    }

    /**
     * Starts a binary replica of {@code master} (which may be on either backend) and waits until it
     * reports {@code master_link_status:up}. The replica authenticates to the master with the master's
     * credentials; {@code config} applies to the replica itself. Replication is asynchronous: to read
     * a write on the replica, wait for it, e.g. {@code master.call("WAIT", "1", "5000")}.
     */
    public RedisNode startReplicaOf(RedisNode master, RedisNodeConfig config) {
        RedisNodeConfig replicaConfig = config.backend(RedisBackend.BINARY)
                .directive("replicaof", master.host(), Integer.toString(master.port()));
        if (master.user() != null) {
            replicaConfig = replicaConfig.directive("masteruser", master.user());
        }
        if (master.password() != null) {
            replicaConfig = replicaConfig.directive("masterauth", master.password());
        }
        RedisNode replica = start(replicaConfig);
        if (!Poll.until(config.startTimeout(), () -> replica.call("INFO", "replication").contains("master_link_status:up"))) {
            throw new IllegalStateException("replica " + replica.uri() + " did not sync with " + master.uri()
                    + " within " + config.startTimeout() + ":\n" + replica.call("INFO", "replication"));
        }
        return replica;
    }

    /**
     * Starts a master, one replica and three Sentinels monitoring the master as {@code masterName}, and waits until
     * the Sentinels see all of it; see {@link SentinelTopology}.
     */
    public SentinelTopology startSentinelTopology(String masterName) {
        return startSentinelTopology(masterName, RedisNodeConfig.defaults());
    }

    /**
     * {@link #startSentinelTopology(String)} with {@code config} for the master and the replica; a
     * {@link RedisNodeConfig#tls TLS} config makes every node, the Sentinels included, TLS-only, with replication
     * and Sentinel's own connections over TLS ({@code tls-replication}).
     */
    public SentinelTopology startSentinelTopology(String masterName, RedisNodeConfig config) {
        ensureOpen();
        return SentinelTopology.start(this, masterName, config);
    }

    /**
     * Starts a Redis Cluster of {@code masters} masters with {@code replicasPerMaster} replicas each and waits until
     * every node reports {@code cluster_state:ok} with all slots covered; see {@link ClusterTopology}.
     */
    public ClusterTopology startCluster(int masters, int replicasPerMaster) {
        return startCluster(masters, replicasPerMaster, RedisNodeConfig.defaults());
    }

    /**
     * {@link #startCluster(int, int)} with {@code config} for every node; a {@link RedisNodeConfig#tls TLS} config
     * makes a TLS-only cluster whose bus and replication use TLS too ({@code tls-cluster}, {@code tls-replication}).
     */
    public ClusterTopology startCluster(int masters, int replicasPerMaster, RedisNodeConfig config) {
        ensureOpen();
        return ClusterTopology.start(this, masters, replicasPerMaster, config);
    }

    /**
     * Starts {@code shards} independent Redis servers and Twemproxy ({@code nutcracker}) in front of them, and waits
     * until PING through the proxy answers; see {@link TwemproxyTopology}.
     *
     * @throws IllegalStateException if nutcracker is not installed (check {@link TwemproxyTopology#isAvailable()})
     */
    public TwemproxyTopology startTwemproxy(int shards) {
        ensureOpen();
        return TwemproxyTopology.start(this, shards);
    }

    /** The nodes started so far and not yet released by {@link #close()}, in start order. */
    public synchronized List<RedisNode> nodes() {
        List<RedisNode> nodes = new ArrayList<>();
        for (AutoCloseable resource : owned) {
            if (resource instanceof RedisNode) {
                nodes.add((RedisNode) resource);
            }
        }
        return Collections.unmodifiableList(nodes);
    }

    /**
     * Closes every node and proxy, last started first. All are attempted; the first failure is rethrown
     * with the others suppressed. Idempotent.
     */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (this) {
            closed = true;
            toClose = new ArrayList<>(owned);
            owned.clear();
        }
        Collections.reverse(toClose);
        RuntimeException failure = null;
        for (AutoCloseable resource : toClose) {
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException unchecked = e instanceof RuntimeException ? (RuntimeException) e
                        : new IllegalStateException("cannot close " + resource, e);
                if (failure == null) {
                    failure = unchecked;
                } else {
                    failure.addSuppressed(unchecked);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Takes ownership of something just started, or closes it and fails if this was closed meanwhile. */
    <T extends AutoCloseable> T own(T resource) {
        synchronized (this) {
            if (!closed) {
                owned.add(resource);
                return resource;
            }
        }
        IllegalStateException failure = new IllegalStateException("RedisServers was closed while " + resource
                + " was starting");
        try {
            resource.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
        throw failure;
    }

    private synchronized void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("RedisServers is closed");
        }
    }
}
