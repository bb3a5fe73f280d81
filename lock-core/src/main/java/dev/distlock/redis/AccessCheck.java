package dev.distlock.redis;

import java.util.List;
import java.util.Map;

import org.springframework.dao.DataAccessException;

import dev.distlock.LockMode;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.lease.Hold.HoldKey;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.script.LockType.Grant;
import dev.distlock.redis.script.LockType;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;

/**
 * Checks that the Redis user may do everything the lock does, by running each script once on a probe lock of each
 * type (then deleting the probe's keys) and opening the release subscription, so that a missing ACL permission fails
 * at start-up with the grant it needs.
 */
final class AccessCheck {

    static final String PROBE_KEY = "distlock-access-check";

    /** The probe lock's lease: 5 s. */
    private static final long PROBE_LEASE_NANOS = 5_000_000_000L;

    private AccessCheck() {
    }

    /**
     * The ACL rules the lock needs, for a user whose keys and channels start with {@code prefix}: the locks'
     * {@code <prefix>:{<key>}:...}, the instance records {@code <prefix>:instance:<id>} (SET, PEXPIRE; see
     * InstanceRecord) and what {@link RedisLockService#inspect} reads (GET, HGETALL, HMGET, PTTL, ZRANGE,
     * ZRANGEBYSCORE, ZSCORE, TIME).
     */
    static String requiredAcl(String prefix) {
        return "~" + prefix + ":* &" + prefix + ":* +hello +ping +select +wait +client|setname +evalsha +eval +script|load +hget "
                + "+hmget +hgetall +hset +hsetnx +hdel +hincrby +hexists +pexpire +pexpireat +pttl +time +info "
                + "+publish "
                + "+subscribe +unsubscribe +spublish +ssubscribe +sunsubscribe +get +set +del +exists +zadd +zrem "
                + "+zscore +zcard +zrank +zrange +zrangebyscore +zremrangebyscore";
    }

    /**
     * Runs the check: takes, renews, releases and gives up a probe lock of every type; then decides whether the scripts
     * need their ACL guard (off for a user granted every command, key and channel; see LockScripts#decideAclGuard).
     *
     * @throws IllegalStateException when Redis refuses a command for lack of permission
     * @throws LockUnavailableException when Redis cannot be reached
     */
    static void run(String prefix, Map<LockMode, LockType> types, ReleaseSubscriptions subscriptions,
            String ownerToken) {
        try {
            for (Map.Entry<LockMode, LockType> entry : types.entrySet()) {
                LockType type = entry.getValue();
                Hold probe = new Hold(new HoldKey(ownerToken, PROBE_KEY, entry.getKey()), type,
                        type.releaseChannel(PROBE_KEY), ownerToken);
                type.checkAccess(probe); // names the first command refused, before any script could refuse one
                long token = type.acquire(probe, new LockType.Grant("1", PROBE_LEASE_NANOS, true, false, true));
                if (token > 0) {
                    type.renew(List.of(probe), PROBE_LEASE_NANOS);
                    type.release(probe, new LockType.Release("1", token, true, 0));
                }
                type.leave(probe);
                type.context.scripts().delete(type.keys(probe)); // no probe key outlives the check
            }
            subscriptions.open();
            types.values().iterator().next().context.scripts().decideAclGuard();
        }
        catch (DataAccessException ex) {
            String refusal = PermissionRefusals.of(ex);
            if (refusal != null && PermissionRefusals.ofCredentials(refusal)) { // the caller names the property
                throw new LockUnavailableException(PROBE_KEY, "Redis refused the credentials: " + refusal, ex);
            }
            if (refusal != null && PermissionRefusals.ofChannel(refusal)) {
                throw new IllegalStateException("The Redis user may not use the lock's release channels (" + refusal
                        + "); Redis 7 grants no channel unless told (acl-pubsub-default resetchannels). Grant them "
                        + "with: ACL SETUSER <user> &" + prefix + ":*", ex);
            }
            if (refusal != null) {
                throw new IllegalStateException("The Redis user may not run a command the lock needs (" + refusal
                        + "). Grant it with: ACL SETUSER <user> " + requiredAcl(prefix), ex);
            }
            throw new LockUnavailableException(PROBE_KEY,
                    "Redis could not be reached to check the lock's permissions: " + ex.getMessage(), ex);
        }
    }
}
