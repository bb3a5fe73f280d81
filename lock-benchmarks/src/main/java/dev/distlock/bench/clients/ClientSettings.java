package dev.distlock.bench.clients;

import java.time.Duration;

/**
 * Settings applied equally to every implementation that has them.
 *
 * @param port the benchmark's redis-server port on 127.0.0.1
 * @param watchdogLease the lease a watchdog keeps alive (distlock {@code watchdogLease}, Redisson
 * {@code lockWatchdogTimeout}, RedisLockRegistry {@code expireAfter} with renewal); renewals run every third of it
 * @param maxWait how long one acquisition may wait before it counts as a timeout
 */
public record ClientSettings(int port, Duration watchdogLease, Duration maxWait) {
}
