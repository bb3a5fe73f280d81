package dev.distlock.redis.wakeup;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.topology.TopologyComparators;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import reactor.core.Disposable;

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

    /**
     * With Lettuce, runs {@code reconnected} whenever a connection is (re)activated (messages sent meanwhile are
     * lost) and, with a cluster client, {@code topologyChanged} on {@code executor} once the client routes by a new
     * topology. Null for other clients.
     */
    static @Nullable Disposable watch(RedisConnectionFactory connectionFactory, ScheduledExecutorService executor,
            Runnable reconnected, Runnable topologyChanged) {
        if (!(connectionFactory instanceof LettuceConnectionFactory lettuce) || lettuce.getNativeClient() == null) {
            return null;
        }
        TopologyChanges topology = (lettuce.getNativeClient() instanceof RedisClusterClient client)
                ? new TopologyChanges(client, executor, topologyChanged) : null;
        return lettuce.getNativeClient().getResources().eventBus().get().subscribe(event -> {
            if (event instanceof ConnectionActivatedEvent) {
                reconnected.run();
            }
            else if (topology != null && event instanceof ClusterTopologyChangedEvent changed) {
                topology.changed(changed.after());
            }
        });
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
