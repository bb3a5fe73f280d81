/**
 * Leases: an owner's hold on a lock, the watchdog that renews holds in batches, and replica acknowledgements.
 */
@NullMarked
package dev.distlock.redis.lease;

import org.jspecify.annotations.NullMarked;
