package dev.distlock.redis.lease;

import java.time.Duration;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.redis.script.AcknowledgedClusterScripts;
import dev.distlock.redis.script.LockScripts;

/**
 * Waits, after a lock write, until enough replicas have acknowledged it ({@code WAIT replicas timeout}), so that a
 * Sentinel or Cluster failover to one of them keeps the lock. {@code WAIT} cannot run inside a script, so it is a
 * second command on the same connection, after the script: it covers every write the connection sent before it. On a
 * Redis Cluster that connection is the one to the slot's master that ran the script (see
 * {@link AcknowledgedClusterScripts}), so that a master demoted while it was paused, whose former replica no longer
 * acknowledges it, cannot keep a grant.
 *
 * @param replicas how many replicas must acknowledge
 * @param timeout how long to wait for them
 */
public record ReplicaAcknowledgement(int replicas, Duration timeout) {

    public ReplicaAcknowledgement {
        if (replicas < 1) {
            throw new IllegalArgumentException("replicas must be at least 1, but was " + replicas);
        }
        checkTimeout(timeout);
    }

    /** Checks an acknowledgement timeout: from 1 ms to 1 minute. */
    public static Duration checkTimeout(Duration timeout) {
        if (timeout == null || timeout.compareTo(Duration.ofMillis(1)) < 0
                || timeout.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException("timeout must be between 1ms and 1 minute, but was " + timeout);
        }
        return timeout;
    }

    /** What runs grants and renewals on a Redis Cluster, each followed by {@code WAIT} on its slot's master. */
    public AcknowledgedClusterScripts onCluster(StringRedisTemplate redis) {
        return new AcknowledgedClusterScripts(redis, this.replicas, this.timeout);
    }

    /**
     * Waits for the acknowledgements (on a Redis Cluster: reads those of this thread's last grant or renewal).
     *
     * @return how many replicas acknowledged, or -1 when Redis did not answer
     */
    public long await(LockScripts scripts) {
        try {
            return scripts.waitForReplicas(this.replicas, this.timeout.toMillis());
        }
        catch (RuntimeException ex) { // Spring's DataAccessException or Lettuce's own, from the future
            return -1;
        }
    }

    public String shortfall(long acknowledged) {
        return (acknowledged < 0 ? "no answer to WAIT" : "only " + acknowledged) + " of the " + this.replicas
                + " replicas required acknowledged it within " + this.timeout;
    }
}
