/**
 * Micrometer support, driven by lock events: {@link dev.distlock.spring.micrometer.LockMetrics}, the lock metrics, and
 * {@link dev.distlock.spring.micrometer.LockObservations}, the observations (trace spans) of acquiring and holding a
 * lock, with {@link dev.distlock.spring.micrometer.ObservedLockService} to run work inside a lock's span.
 */
@NullMarked
package dev.distlock.spring.micrometer;

import org.jspecify.annotations.NullMarked;
