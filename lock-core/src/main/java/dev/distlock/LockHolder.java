package dev.distlock;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One holder of a lock, as {@link LockInspection#inspect(String)} read it from Redis.
 *
 * @param instance the service instance that holds it (its owner token names it)
 * @param owner who holds it in that instance, as {@link HeldLock#owner()} says ({@code "thread <name>"}), or null when
 * unknown: an instance publishes the owners of its holds once they are older than one renewal interval (at most the
 * 100 oldest), and knows its own at once
 * @param since when it was granted, or null when unknown: the fencing token's Redis clock reading where the token was
 * taken from the clock (fair, read/write and semaphore grants, and an exclusive lock's first grant after it was
 * free long enough to forget its token), else what the holding instance published (its own clock)
 * @param leaseLeft how much of the lease is left, by Redis (the watchdog renews it unless the lease is fixed)
 * @param fencingToken the fencing token of the grant
 * @param holdCount the holder's open acquisitions: more than 1 when it re-entered the lock
 * @param permits the permits held (1 for a lock)
 */
public record LockHolder(LockInstance instance, @Nullable String owner, @Nullable Instant since, Duration leaseLeft,
        long fencingToken, int holdCount, int permits) {
}
