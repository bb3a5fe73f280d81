package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs the renewal scripts, one batch of locks in one slot per call, through the template (or, on a Redis Cluster
 * with replica acknowledgements, on the slot's master followed by WAIT). A refusal tells the ACL guard.
 */
final class RenewalScripts {

    private final StringRedisTemplate redis;

    private final @Nullable AcknowledgedClusterScripts acknowledged;

    private final AclGuard aclGuard;

    RenewalScripts(StringRedisTemplate redis, @Nullable AcknowledgedClusterScripts acknowledged, AclGuard aclGuard) {
        this.redis = redis;
        this.acknowledged = acknowledged;
        this.aclGuard = aclGuard;
    }

    /** Runs renew.lua: per lock, {@link LockScripts#RENEWED}, {@link LockScripts#NOT_HELD_BY_OWNER}, ... */
    int[] renew(List<String> lockHashes, List<String> ownerTokens, String leaseMillis) {
        return batch(LockScripts.RENEW, lockHashes, ownerTokens, leaseMillis);
    }

    /**
     * Runs a renewal script that takes the lease then one owner token per lock, and answers per lock
     * {@link LockScripts#RENEWED}, {@link LockScripts#NOT_HELD_BY_OWNER} or {@link LockScripts#NOT_RENEWED}.
     */
    @SuppressWarnings("rawtypes")
    int[] batch(ScriptLayout<List> layout, List<String> keys, List<String> ownerTokens, String leaseMillis) {
        ScriptLayout<List>.Arguments arguments = layout.arguments(ownerTokens.size());
        arguments.set(LEASE_MILLIS, leaseMillis);
        for (int i = 0; i < ownerTokens.size(); i++) {
            arguments.setAt(OWNER_TOKEN, i, ownerTokens.get(i));
        }
        Object[] args = arguments.toArray();
        List<?> replies;
        try {
            replies = (this.acknowledged != null) ? this.acknowledged.renew(layout.script(), keys, args)
                    : this.redis.execute(layout.script(), keys, args);
        }
        catch (RuntimeException ex) {
            this.aclGuard.noteFailure(ex);
            throw ex;
        }
        if (replies == null) {
            throw new IllegalStateException("Lock scripts cannot run in a Redis pipeline or transaction");
        }
        int[] renewed = new int[ownerTokens.size()];
        for (int i = 0; i < renewed.length; i++) {
            renewed[i] = ((Number) replies.get(i)).intValue();
        }
        return renewed;
    }
}
