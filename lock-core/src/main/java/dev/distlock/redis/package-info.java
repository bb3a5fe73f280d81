/**
 * The Redis implementation of {@link dev.distlock.LockService}: {@link dev.distlock.redis.RedisLockService} and the
 * package-private parts it is built from (scripts, watchdog, release subscriptions).
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
