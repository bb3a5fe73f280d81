/**
 * The lock types of the Redis service, their Redis keys and their Lua scripts (one per operation; each file's
 * header describes its keys). Imports nothing of the other parts.
 * <p>Internal: not exported by lock-core's module descriptor; it may change in any release without notice.
 */
@NullMarked
package dev.distlock.redis.script;

import org.jspecify.annotations.NullMarked;
