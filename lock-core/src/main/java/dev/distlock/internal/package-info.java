/**
 * Internal: the skeleton that every {@link dev.distlock.LockService} of this library shares (acquisition, waiting
 * limits, listener events, key sets, handle release rules). Public only so that the service packages can use it; it
 * may change in any release without notice. Do not use it from application code: lock-core's module descriptor
 * exports it only to distlock's own lock-test module.
 */
@NullMarked
package dev.distlock.internal;

import org.jspecify.annotations.NullMarked;
