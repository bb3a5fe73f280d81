package dev.distlock.redis.wakeup;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.topology.TopologyComparators;

/**
 * Runs an action after a Redis Cluster client saw the topology change (a failover, a resharding), once the client
 * routes by the new topology: Lettuce announces a change just before it applies it. Waits for that at most
 * {@value #MOST_CHECKS} × {@value #CHECK_MILLIS} ms, then runs the action anyway.
 */
final class TopologyChanges {

    private static final long CHECK_MILLIS = 10;

    private static final int MOST_CHECKS = 100;

    private final RedisClusterClient client;

    private final ScheduledExecutorService executor;

    private final Runnable action;

    /** @param executor runs the action and the checks; a closed one ends them */
    TopologyChanges(RedisClusterClient client, ScheduledExecutorService executor, Runnable action) {
        this.client = client;
        this.executor = executor;
        this.action = action;
    }

    /** The client announced {@code topology}: runs the action on the executor once the client routes by it. */
    void changed(List<RedisClusterNode> topology) {
        Partitions announced = new Partitions();
        announced.addAll(topology);
        check(announced, 0);
    }

    private void check(Partitions announced, int checks) {
        try {
            if (checks < MOST_CHECKS && TopologyComparators.isChanged(this.client.getPartitions(), announced)) {
                this.executor.schedule(() -> check(announced, checks + 1), CHECK_MILLIS, TimeUnit.MILLISECONDS);
            }
            else {
                this.executor.execute(this.action);
            }
        }
        catch (RejectedExecutionException ex) {
            // the subscriptions were closed
        }
    }
}
