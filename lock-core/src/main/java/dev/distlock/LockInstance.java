package dev.distlock;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A service instance (one {@code LockService} in one process) as its record in Redis describes it. Each instance
 * writes its record when it starts and refreshes it every renewal interval; the record expires 10 minutes after the
 * last refresh (or three renewal intervals, if longer), so a holder whose record is gone or whose {@code lastSeen} is
 * old has most likely stopped.
 *
 * @param id the instance id: 16 hex digits, the start of each owner token the instance makes
 * @param host the host name the instance reported, or null when its record is gone
 * @param application the application name the service was given (the Spring Boot starter passes
 * {@code spring.application.name}), or null when none was given or the record is gone
 * @param pid the process id, or 0 when unknown
 * @param started when the service started, on its own clock; null when unknown
 * @param lastSeen when the instance last refreshed its record, on the Redis clock; null when its record is gone
 */
public record LockInstance(String id, @Nullable String host, @Nullable String application, long pid,
        @Nullable Instant started, @Nullable Instant lastSeen) {
}
