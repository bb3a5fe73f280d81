/**
 * Leases: an owner's hold on a lock, the watchdog that renews holds in batches, and replica acknowledgements.
 * <p>Internal: not exported by lock-core's module descriptor; it may change in any release without notice.
 */
@NullMarked
package dev.distlock.redis.lease;

import org.jspecify.annotations.NullMarked;
