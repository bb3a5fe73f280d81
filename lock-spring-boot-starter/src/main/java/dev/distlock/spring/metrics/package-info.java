/**
 * Micrometer metrics of distlock's locks: {@link dev.distlock.spring.metrics.LockMetrics}.
 */
@NullMarked
package dev.distlock.spring.metrics;

import org.jspecify.annotations.NullMarked;
