package dev.distlock.spring;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import dev.distlock.spring.autoconfigure.DistributedLockAspectAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockPropertiesCheckAutoConfiguration;
import dev.distlock.spring.autoconfigure.QuorumLockAutoConfiguration;
import dev.distlock.test.RedisNode;

/** Application contexts as a Boot application with the starter has them, connected to a test's Redis. */
public final class LockContexts {

    private LockContexts() {
    }

    /** Boot's AOP, placeholder and Redis auto-configuration plus distlock's, on the given Redis. */
    public static ApplicationContextRunner runner(RedisNode redis) {
        return runner(redis.port());
    }

    /** The same, on a Redis at the given loopback port (which may have nothing listening). */
    public static ApplicationContextRunner runner(int port) {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                    PropertyPlaceholderAutoConfiguration.class, BootAutoConfigurations.DATA_REDIS,
                    QuorumLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
                    DistributedLockAspectAutoConfiguration.class,
                    DistributedLockPropertiesCheckAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port);
    }

    /** The Redis key of a lock's hash with the default prefix. */
    public static String lockHash(String key) {
        return "distlock:{" + key + "}:lock";
    }
}
