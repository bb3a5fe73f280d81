/**
 * Quorum (Redlock) mode: a lock held when a majority of independent Redis masters grant it, with
 * quorum-monotonic fencing tokens.
 */
@NullMarked
package dev.distlock.redis.quorum;

import org.jspecify.annotations.NullMarked;
