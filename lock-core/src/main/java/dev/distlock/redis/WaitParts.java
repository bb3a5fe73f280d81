package dev.distlock.redis;

import java.util.function.BooleanSupplier;

import dev.distlock.redis.wakeup.ReleaseSubscriptions;

/**
 * What a {@link WaitingCall} uses of its service.
 *
 * @param subscriptions the release subscriptions its waiter listens on
 * @param placeRefreshNanos how often a waiter that keeps a place in Redis (a fair queue place, a write intent)
 * refreshes it
 * @param closed whether the service was closed
 */
record WaitParts(ReleaseSubscriptions subscriptions, long placeRefreshNanos, BooleanSupplier closed) {
}
