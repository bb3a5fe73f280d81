package dev.distlock.redis;

/**
 * The logger every part of the single-Redis service logs to: the service's own name, so that one logger setting covers
 * them all. A string, so that the parts need not name the service.
 */
final class ServiceLog {

    static final String NAME = "dev.distlock.redis.RedisLockService";

    private ServiceLog() {
    }
}
