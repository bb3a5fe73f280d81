/**
 * Lock failures as HTTP responses: {@link dev.distlock.spring.web.LockProblemDetailsHandler} maps them to RFC 9457
 * problem details for Spring MVC and WebFlux.
 */
@NullMarked
package dev.distlock.spring.web;

import org.jspecify.annotations.NullMarked;
