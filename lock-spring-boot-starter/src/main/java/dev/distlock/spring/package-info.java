/**
 * The {@link dev.distlock.spring.DistributedLock @DistributedLock} annotation and the Spring AOP advisor that applies
 * it: {@link dev.distlock.spring.DistributedLockAdvisor}, {@link dev.distlock.spring.CurrentLock} for the running
 * call's lock, and what happens when a lock is not acquired ({@link dev.distlock.spring.OnNotAcquired},
 * {@link dev.distlock.spring.LockNotAcquiredHandler}).
 */
@NullMarked
package dev.distlock.spring;

import org.jspecify.annotations.NullMarked;
