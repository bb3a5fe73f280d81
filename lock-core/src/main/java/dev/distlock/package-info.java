/**
 * The distlock API: {@link dev.distlock.LockService} to take distributed locks, the {@link dev.distlock.LockHandle}
 * it returns, {@link dev.distlock.LockOptions} and the exceptions every call documents.
 */
@NullMarked
package dev.distlock;

import org.jspecify.annotations.NullMarked;
