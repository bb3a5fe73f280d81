/**
 * Micrometer support: {@link dev.distlock.spring.micrometer.LockMetrics}, the lock metrics, and
 * {@link dev.distlock.spring.micrometer.ObservedLockService}, the observations (trace spans) of acquiring a lock and of
 * the work done under it.
 */
@NullMarked
package dev.distlock.spring.micrometer;

import org.jspecify.annotations.NullMarked;
