/**
 * Waking waiters: release subscriptions (classic or sharded pub/sub) shared by the waiting threads of one service.
 */
@NullMarked
package dev.distlock.redis.wakeup;

import org.jspecify.annotations.NullMarked;
