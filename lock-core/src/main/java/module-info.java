/**
 * distlock's lock engine: distributed locks on Redis through Spring Data Redis and Lettuce.
 *
 * <p>What applications use is exported: the API ({@code dev.distlock}), the single-Redis service and its builder
 * ({@code dev.distlock.redis}), the quorum service and its builder ({@code dev.distlock.redis.quorum}) and the Reactor
 * view ({@code dev.distlock.reactor}). Every other package is the engine's inside and may change in any release; the
 * skeleton ({@code dev.distlock.internal}) and key rules ({@code dev.distlock.redis.script}) are opened only to
 * distlock's own in-memory test service ({@code dev.distlock.test}, the lock-test artifact). On the class path (as
 * Spring Boot applications run) this descriptor is not read, and the same rule holds by the packages' documentation.
 */
module dev.distlock {
    requires transitive spring.data.redis;
    requires transitive spring.tx;
    requires spring.core;
    requires lettuce.core;
    requires org.apache.commons.logging;
    requires static transitive org.jspecify;
    requires static transitive reactor.core;
    requires static org.reactivestreams;

    exports dev.distlock;
    exports dev.distlock.redis;
    exports dev.distlock.redis.quorum;
    exports dev.distlock.reactor;

    exports dev.distlock.internal to dev.distlock.test;
    exports dev.distlock.redis.script to dev.distlock.test;
}
