package dev.distlock.redis;

import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Reads Redis's {@code maxmemory-policy} (from {@code INFO memory}) and acts on one that may evict held locks. */
final class EvictionGuard {

    private static final Log logger = LogFactory.getLog(EvictionGuard.class);

    /** The policies that never delete a key with a TTL. */
    private static final Set<String> SAFE = Set.of("noeviction");

    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final StringRedisTemplate redis;

    private final EvictionPolicyCheck check;

    /** Set when INFO failed other than by Redis being unreachable (a proxy that refuses it): no more checks. */
    private volatile boolean unreadable;

    /** When the policy was last read: the connection that the build's check opened needs no second check. */
    private volatile long checkedNanos = System.nanoTime() - RECHECK_NANOS;

    /** Whether INFO was refused or dropped (likely a proxy, which may not pass SCRIPT LOAD on either). */
    boolean unreadable() {
        return this.unreadable;
    }

    EvictionGuard(StringRedisTemplate redis, EvictionPolicyCheck check) {
        this.redis = redis;
        this.check = check;
    }

    /**
     * Checks the policy now. {@code starting}: the service is being built, so {@link EvictionPolicyCheck#FAIL}
     * throws; otherwise it logs an error. A Redis that cannot be reached is checked again at the next connection.
     */
    void check(boolean starting) {
        boolean justChecked = System.nanoTime() - this.checkedNanos < RECHECK_NANOS;
        if (this.check == EvictionPolicyCheck.OFF || this.unreadable || (!starting && justChecked)) {
            return;
        }
        this.checkedNanos = System.nanoTime();
        String policy;
        try {
            policy = policy();
        }
        catch (RedisConnectionFailureException ex) {
            logger.debug("Could not reach Redis to read its maxmemory-policy; it is checked when the connection comes "
                    + "back", ex);
            return;
        }
        catch (DataAccessException ex) { // refused or dropped: asking again at each reconnect would only repeat it
            this.unreadable = true;
            logger.warn("Could not read Redis's maxmemory-policy from INFO memory (" + ex.getMessage() + "); it is "
                    + "not checked. Make sure it is noeviction on the lock's Redis");
            return;
        }
        if (policy == null || SAFE.contains(policy)) {
            return;
        }
        String message = "Redis's maxmemory-policy is " + policy + ", which may evict a held lock (every lock key "
                + "has a TTL) when Redis runs out of memory, and hand it to a second holder. Set maxmemory-policy "
                + "noeviction on the lock's Redis (CONFIG SET maxmemory-policy noeviction, and in redis.conf)";
        if (this.check == EvictionPolicyCheck.FAIL && starting) {
            throw new IllegalStateException(message + "; or set evictionPolicyCheck to WARN");
        }
        if (this.check == EvictionPolicyCheck.FAIL) {
            logger.error(message);
        }
        else {
            logger.warn(message);
        }
    }

    /** The policy; on a Cluster, the first node's that may evict, else any node's. */
    private @Nullable String policy() {
        Properties info = this.redis.execute((RedisCallback<Properties>) connection -> connection.serverCommands()
            .info("memory"));
        if (info == null) {
            return null;
        }
        String found = null;
        for (String name : info.stringPropertyNames()) {
            if (name.endsWith("maxmemory_policy")) { // a Cluster prefixes each node's address
                found = info.getProperty(name).trim();
                if (!SAFE.contains(found)) {
                    return found;
                }
            }
        }
        return found;
    }
}
