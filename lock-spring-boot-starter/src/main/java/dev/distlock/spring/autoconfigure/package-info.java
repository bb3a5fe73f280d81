/**
 * Spring Boot auto-configuration of distlock: the {@link dev.distlock.LockService} bean, the
 * {@link dev.distlock.spring.DistributedLock @DistributedLock} advisor and the {@code distlock.*} properties.
 */
@NullMarked
package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
