/**
 * Spring Boot Actuator support: the {@code locks} endpoint ({@link dev.distlock.spring.actuate.LocksEndpoint}) and
 * the lock service's health ({@link dev.distlock.spring.actuate.LockServiceHealthIndicator}).
 */
@NullMarked
package dev.distlock.spring.actuate;

import org.jspecify.annotations.NullMarked;
