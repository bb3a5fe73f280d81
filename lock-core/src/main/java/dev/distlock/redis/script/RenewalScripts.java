package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Runs the renewal scripts, one batch of locks in one slot per call: blocking through the template (or, on a Redis
 * Cluster with replica acknowledgements, on the slot's master followed by WAIT), or without waiting on the Lettuce
 * factory's shared connection ({@link Call#runAsync()}), so that the watchdog keeps many batches in flight. A refusal
 * tells the ACL guard.
 */
final class RenewalScripts {

    private final StringRedisTemplate redis;

    private final @Nullable AcknowledgedClusterScripts acknowledged;

    private final AclGuard aclGuard;

    private final ScriptRouter router;

    RenewalScripts(StringRedisTemplate redis, @Nullable AcknowledgedClusterScripts acknowledged, AclGuard aclGuard,
            ScriptRouter router) {
        this.redis = redis;
        this.acknowledged = acknowledged;
        this.aclGuard = aclGuard;
        this.router = router;
    }

    /**
     * Whether {@link Call#runAsync()} can send here: on the Lettuce factory's shared connection (the one the
     * service's {@code WAIT} runs on), not on a Redis Cluster with replica acknowledgements.
     */
    boolean sendsAsync() {
        return this.router.sendsBatches();
    }

    /** Runs renew.lua: per lock, {@link ScriptReplies#RENEWED}, {@link ScriptReplies#NOT_HELD_BY_OWNER}, ... */
    int[] renew(List<String> lockHashes, List<String> ownerTokens, long leaseNanos) {
        return batch(Scripts.RENEW, lockHashes, ownerTokens, leaseNanos).run();
    }

    /**
     * A call of a renewal script that takes the lease then one owner token per lock, and answers per lock
     * {@link ScriptReplies#RENEWED}, {@link ScriptReplies#NOT_HELD_BY_OWNER} or {@link ScriptReplies#NOT_RENEWED}.
     */
    @SuppressWarnings("rawtypes")
    Call batch(ScriptLayout<List> layout, List<String> keys, List<String> ownerTokens, long leaseNanos) {
        ScriptLayout<List>.Arguments arguments = layout.arguments(ownerTokens.size());
        arguments.setMillis(LEASE_MILLIS, leaseNanos);
        for (int i = 0; i < ownerTokens.size(); i++) {
            arguments.setAt(OWNER_TOKEN, i, ownerTokens.get(i));
        }
        return new Call(layout, keys, arguments.toArray(), ownerTokens.size());
    }

    /** One renewal batch's script call, to run blocking or not. */
    final class Call {

        @SuppressWarnings("rawtypes")
        private final ScriptLayout<List> layout;

        private final List<String> keys;

        private final Object[] args;

        private final int locks;

        @SuppressWarnings("rawtypes")
        Call(ScriptLayout<List> layout, List<String> keys, Object[] args, int locks) {
            this.layout = layout;
            this.keys = keys;
            this.args = args;
            this.locks = locks;
        }

        /** Runs the call and waits for its answer: per lock, what the script answered. */
        int[] run() {
            List<?> replies;
            try {
                replies = (RenewalScripts.this.acknowledged != null)
                        ? RenewalScripts.this.acknowledged.renew(this.layout.script(), this.keys, this.args)
                        : RenewalScripts.this.redis.execute(this.layout.script(), this.keys, this.args);
            }
            catch (RuntimeException ex) {
                RenewalScripts.this.aclGuard.noteFailure(ex);
                throw ex;
            }
            if (replies == null) {
                throw new IllegalStateException("Lock scripts cannot run in a Redis pipeline or transaction");
            }
            return renewed(replies);
        }

        /**
         * Sends the call without waiting (only where {@link #sendsAsync()}); the future completes on a Redis client
         * thread with what {@link #run()} returns, or its failure.
         */
        CompletableFuture<int[]> runAsync() {
            return RenewalScripts.this.router.runBatchAsync(this.layout.script(), this.keys, this.args)
                .thenApply(this::renewed);
        }

        private int[] renewed(List<?> replies) {
            if (replies.size() != this.locks) {
                throw new IllegalStateException("A renewal of " + this.locks + " locks answered " + replies.size());
            }
            int[] renewed = new int[this.locks];
            for (int i = 0; i < renewed.length; i++) {
                renewed[i] = ((Number) replies.get(i)).intValue();
            }
            return renewed;
        }
    }
}
