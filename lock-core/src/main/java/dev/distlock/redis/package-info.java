/**
 * The single-Redis {@link dev.distlock.LockService}: {@link dev.distlock.redis.RedisLockService}, its builder and its
 * handle, built from the parts in the subpackages: {@code script} (lock types and Lua scripts), {@code lease} (holds
 * and the watchdog), {@code wakeup} (release subscriptions) and {@code quorum} (quorum mode over several masters).
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
