/**
 * A {@link dev.distlock.LockService} in memory, for tests that need locks without Redis: see
 * {@link dev.distlock.memory.InMemoryLockService}.
 */
@NullMarked
package dev.distlock.memory;

import org.jspecify.annotations.NullMarked;
