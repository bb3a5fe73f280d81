/**
 * Waking waiters: release subscriptions (classic or sharded pub/sub) shared by the waiting threads of one service.
 * <p>Internal: not exported by lock-core's module descriptor; it may change in any release without notice.
 */
@NullMarked
package dev.distlock.redis.wakeup;

import org.jspecify.annotations.NullMarked;
