package dev.distlock.redis;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockMode;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseWatchdog;
import dev.distlock.redis.lease.ReplicaAcknowledgement;
import dev.distlock.redis.script.LockType;

/**
 * What one lock call ({@link LockRequest}) uses of its service, made once by the service's {@link LockEngine}.
 *
 * @param types the lock types by mode
 * @param holds the service's holds, which a grant joins and a re-entry re-enters
 * @param queues the local queues of exclusive waiters
 * @param releases what a granted handle releases through
 * @param watchdog renews the leases of watched holds
 * @param replicaAcknowledgement the replicas a grant waits for, or null
 * @param watchdogLeaseNanos the lease of a watched grant
 * @param ownerTokens makes a new owner token
 * @param failures what undoing a failed grant uses
 * @param leavePlace gives up a waiter's place in Redis (best effort)
 * @param waits what a waiting call uses
 */
record CallParts(Map<LockMode, LockType> types, Holds holds, LocalQueues queues, RedisLockHandle.Releaser releases,
        LeaseWatchdog watchdog, @Nullable ReplicaAcknowledgement replicaAcknowledgement, long watchdogLeaseNanos,
        Supplier<String> ownerTokens, GrantFailures.Parts failures,
        Consumer<Hold> leavePlace, WaitParts waits) {
}
