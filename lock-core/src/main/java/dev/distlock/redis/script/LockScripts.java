package dev.distlock.redis.script;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A service's way to its lock scripts ({@link Scripts}): the runner the lock types' calls go to, the renewal batches,
 * the ACL guard's decision and the restart grace. The scripts are loaded with {@code SCRIPT LOAD} when it starts and
 * run with EVALSHA; a NOSCRIPT after a {@code SCRIPT FLUSH}, a restart or a failover loads them again
 * ({@link ScriptPipeline}). Lock calls, blocking or not, go straight to the Lettuce connection
 * ({@link LettuceScripts}); the template runs them only on a connection factory other than Lettuce's and for
 * grants with replica acknowledgements on a Redis Cluster ({@link ScriptRouter}), and it runs every other command.
 */
public final class LockScripts {

    private final StringRedisTemplate redis;

    private final RestartGrace restartGrace;

    private final ScriptRouter router;

    private final RenewalScripts renewals;

    public LockScripts(StringRedisTemplate redis) {
        this(redis, RestartGrace.none());
    }

    public LockScripts(StringRedisTemplate redis, RestartGrace restartGrace) {
        this(redis, restartGrace, null, null, true);
    }

    /**
     * @param acknowledged on a Redis Cluster with replica acknowledgements, what runs grants and renewals on their
     * slot's master followed by WAIT there; else null
     * @param callTimeout how long a lock call waits for Redis when shorter than the client's command timeout (see
     * {@code RedisLockServiceBuilder#callTimeout}); null: the client's timeout
     * @param loadScripts whether to load the scripts when it starts ({@link ScriptRouter#loadScripts()}): not behind a
     * sharding proxy, which does not pass {@code SCRIPT LOAD} on (there each script loads with EVAL after NOSCRIPT)
     */
    public LockScripts(StringRedisTemplate redis, RestartGrace restartGrace,
            @Nullable AcknowledgedClusterScripts acknowledged, @Nullable Duration callTimeout, boolean loadScripts) {
        this.redis = redis;
        this.restartGrace = restartGrace;
        AclGuard aclGuard = new AclGuard();
        this.router = new ScriptRouter(redis, aclGuard, acknowledged, callTimeout, loadScripts);
        this.renewals = new RenewalScripts(redis, acknowledged, aclGuard, this.router);
        this.router.loadScripts();
    }

    /** What runs the lock types' script calls. */
    ScriptRouter runner() {
        return this.router;
    }

    /** The restart grace of the service's new grants. */
    RestartGrace restartGrace() {
        return this.restartGrace;
    }

    /** Runs the renewal scripts (renew.lua and the other lock types'), a batch of locks in one slot per call. */
    RenewalScripts renewals() {
        return this.renewals;
    }

    /**
     * Decides, from the Redis user's ACL, whether the scripts run their ACL guard (see {@link AclGuard}): off for a
     * user granted every command, key and channel, else on. Runs {@code ACL WHOAMI} and {@code ACL GETUSER}, and loads
     * the scripts the service runs from then on.
     */
    public void decideAclGuard() {
        this.router.decideAclGuard();
    }

    /** Whether Redis's error says it refused a command, key or channel for lack of permission (see AclGuard). */
    public static boolean refusesPermission(String message) {
        return AclGuard.refusesPermission(message);
    }

    /** Deletes keys of one lock (one slot) with a plain DEL. */
    public void delete(List<String> keys) {
        this.redis.delete(keys);
    }

    /**
     * Runs {@code WAIT} on the shared connection, after the writes this client sent on it: how many replicas
     * acknowledged them within the timeout. Other commands on the shared connection wait behind it meanwhile. Needs
     * Lettuce. On a Redis Cluster it ran already, after this thread's last grant or renewal, on that call's node.
     */
    public long waitForReplicas(int replicas, long timeoutMillis) {
        return this.router.waitForReplicas(replicas, timeoutMillis);
    }
}
