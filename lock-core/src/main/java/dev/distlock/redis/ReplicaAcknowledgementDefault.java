package dev.distlock.redis;

import java.time.Duration;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.lease.ReplicaAcknowledgement;

/**
 * Decides, when the service is built, whether grants, hand-offs and renewals wait for replica acknowledgements, and
 * says which guarantee that gives (one INFO line). Explicit settings win; by default ({@link
 * RedisLockServiceBuilder#REPLICAS_BY_TOPOLOGY}) one replica must acknowledge where the topology has replicas to fail
 * over to: a Sentinel-managed master, a Redis Cluster whose every master has a replica, a master that reports
 * connected replicas ({@code INFO replication}) when the service is built.
 */
final class ReplicaAcknowledgementDefault {

    private static final String OPT_OUT = "opt out with replicaAcknowledgements(0, ...) "
            + "(distlock.replica-acknowledgements.replicas=0)";

    private ReplicaAcknowledgementDefault() {
    }

    /**
     * The acknowledgement the service uses (null: none) and the guarantee it gives, for the startup log; {@code warn}
     * when the default could not be decided, so the log must not read as a choice.
     */
    record Decision(@Nullable ReplicaAcknowledgement acknowledgement, String guarantee, boolean warn) {
    }

    static Decision decide(StringRedisTemplate redis, boolean shardingProxy, int replicas, Duration timeout) {
        if (replicas > 0) {
            return on(new ReplicaAcknowledgement(replicas, timeout), "configured");
        }
        if (replicas == 0) {
            return off("turned off (replicaAcknowledgements 0)");
        }
        if (shardingProxy) {
            return off("behind a sharding proxy, which passes no WAIT");
        }
        RedisConnectionFactory factory = redis.getRequiredConnectionFactory();
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            return off("WAIT after a grant needs a Lettuce connection factory");
        }
        String topology;
        try {
            topology = topologyWithReplicas(redis, lettuce);
        }
        catch (RuntimeException ex) { // unreachable or too slow at startup: nothing to go by
            return new Decision(null, "Lock grants are not acknowledged by replicas: the topology could not be read "
                    + "when the service was built (" + ex + "), so it is not known whether replicas exist to fail "
                    + "over to; a failover to a replica that had not yet received a grant can give the same lock to a "
                    + "second holder. Choose explicitly: distlock.replica-acknowledgements.replicas=1 (where replicas "
                    + "exist) or 0 (RedisLockServiceBuilder#replicaAcknowledgements)", true);
        }
        if (topology == null) {
            return off("no replicas found to fail over to");
        }
        if (!lettuce.getShareNativeConnection()) {
            return off(topology + ", but the factory has shareNativeConnection=false, so a WAIT could not run on "
                    + "the connection of the grant it confirms");
        }
        return on(new ReplicaAcknowledgement(1, timeout), topology + ", on by default");
    }

    /**
     * What kind of topology with replicas this is, or null when it has none.
     *
     * @throws RuntimeException when Redis did not answer
     */
    private static @Nullable String topologyWithReplicas(StringRedisTemplate redis, LettuceConnectionFactory lettuce) {
        if (lettuce.getSentinelConfiguration() != null) {
            return "a Sentinel-managed master";
        }
        if (lettuce.isClusterAware()) {
            Iterable<RedisClusterNode> nodes = redis.execute((RedisCallback<Iterable<RedisClusterNode>>)
                    connection -> ((RedisClusterConnection) connection).clusterGetNodes());
            return everyMasterHasAReplica(nodes) ? "a Redis Cluster whose masters have replicas" : null;
        }
        Properties info = redis.execute((RedisCallback<Properties>) connection -> connection.serverCommands()
            .info("replication"));
        String connected = (info != null) ? info.getProperty("connected_slaves") : null;
        return (connected != null && Integer.parseInt(connected.trim()) > 0)
                ? "a master with " + connected.trim() + " connected replica(s)" : null;
    }

    private static boolean everyMasterHasAReplica(@Nullable Iterable<RedisClusterNode> nodes) {
        if (nodes == null) {
            return false;
        }
        Set<String> masters = new HashSet<>();
        Set<String> replicated = new HashSet<>();
        for (RedisClusterNode node : nodes) {
            if (node.isMaster() && node.getSlotRange() != null && !node.getSlotRange().getSlots().isEmpty()) {
                masters.add(node.getId());
            }
            else if (node.isReplica() && node.isConnected() && node.getMasterId() != null) {
                replicated.add(node.getMasterId());
            }
        }
        return !masters.isEmpty() && replicated.containsAll(masters);
    }

    private static Decision on(ReplicaAcknowledgement acknowledgement, String why) {
        return new Decision(acknowledgement, "Lock grants, hand-offs and renewals wait for "
                + acknowledgement.replicas() + " replica(s) to acknowledge them (WAIT, at most " + acknowledgement.timeout().toMillis() + " ms; "
                + why + "): a failover to an acknowledging replica keeps every lock a caller was told it holds; a "
                + "grant not acknowledged in time is undone and fails with LockUnavailableException"
                + (why.endsWith("by default") ? "; " + OPT_OUT : ""), false);
    }

    private static Decision off(String why) {
        return new Decision(null, "Lock grants are not acknowledged by replicas (" + why + "): a failover to a "
                + "replica that had not yet received a grant can give the same lock to a second holder", false);
    }
}
