package dev.distlock.reliability.mixed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The fault explorer's mixed mode runs the previous layout's engine in the explorer's JVM: its service's classes and
 * Lua scripts come from the previous build's class loader, only the API package is shared, and it contends with a
 * current service on one Redis with the API's own exceptions.
 */
@RedisTest
class PreviousEngineTest {

    @Test
    void thePreviousServiceRunsThePreviousCodeBesideTheCurrentOne(RedisNode redis) throws Exception {
        PreviousEngine engine = PreviousEngine.load();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        LockService previous = null;
        RedisLockService current = null;
        try {
            StringRedisTemplate template = new StringRedisTemplate(factory);
            previous = engine.redisService(template, Duration.ofMillis(1500), Duration.ofSeconds(2));
            current = RedisLockService.builder(template).restartGrace(Duration.ZERO).build();

            // the engine and its scripts are the previous build's, the API is today's
            assertThat(previous.getClass().getName()).isEqualTo(RedisLockService.class.getName());
            assertThat(previous.getClass()).isNotSameAs(RedisLockService.class);
            assertThat(previous.getClass().getClassLoader()).isSameAs(engine.loader());
            assertThat(Class.forName("dev.distlock.redis.script.ScriptLayout", false, engine.loader())
                .getClassLoader()).isSameAs(engine.loader());
            assertThat(engine.loader().getResource("dev/distlock/redis/script/acquire.lua").toString())
                .contains("distlock-previous-layout").isNotEqualTo(
                        RedisLockService.class.getClassLoader().getResource("dev/distlock/redis/script/acquire.lua")
                            .toString());
            assertThat(Class.forName("dev.distlock.LockService", false, engine.loader())).isSameAs(LockService.class);
            assertThat(PreviousEngine.ChildFirst.shared("dev.distlock.LockOptions")).isTrue();
            assertThat(PreviousEngine.ChildFirst.shared("dev.distlock.reactor.ReactiveLocks")).isFalse();

            // the two contend on one key, with the API's exceptions and rising fencing tokens
            long first;
            try (LockHandle held = previous.acquire("mixed:explorer", LockOptions.defaults())) {
                first = held.fencingToken();
                RedisLockService currentService = current;
                assertThat(current.tryAcquire("mixed:explorer", LockOptions.defaults())).isEmpty();
                assertThatThrownBy(() -> currentService.acquire("mixed:explorer",
                        LockOptions.defaults().withWaitTime(Duration.ofMillis(200))))
                    .isInstanceOf(LockTimeoutException.class);
            }
            try (LockHandle next = current.acquire("mixed:explorer", LockOptions.defaults())) {
                assertThat(next.fencingToken()).isGreaterThan(first);
                Optional<LockHandle> refused = previous.tryAcquire("mixed:explorer", LockOptions.defaults());
                assertThat(refused).isEmpty();
            }
            assertThat(engine.buildMillis()).isPositive();
        }
        finally {
            if (previous != null) {
                ((AutoCloseable) previous).close();
            }
            if (current != null) {
                current.close();
            }
            factory.destroy();
        }
    }
}
