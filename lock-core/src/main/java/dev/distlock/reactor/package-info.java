/**
 * A Reactor view of the non-blocking lock calls, for WebFlux and other Reactor users: {@link
 * dev.distlock.reactor.ReactiveLocks}. Needs {@code reactor-core} on the class path (Lettuce brings it); nothing else
 * in distlock refers to this package.
 */
@NullMarked
package dev.distlock.reactor;

import org.jspecify.annotations.NullMarked;
