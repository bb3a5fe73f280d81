package dev.distlock.spring.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import io.micrometer.observation.ObservationRegistry;

/**
 * Handles with a fixed lease left to run out are never released, so their {@value LockObservations#LOCKED}
 * observations never end by a release. Once the open observations reach the bound, those of handles no longer held
 * are ended first, as LockMetrics forgets them, so that later locks are still observed.
 */
@RedisTest
class LockObservationsPruningTest {

    private static final int BOUND = 3;

    @Test
    void locksLeftToRunOutDoNotKeepLaterLocksFromBeingObserved(RedisNode redis) {
        LockObservationTest.Recorder recorder = new LockObservationTest.Recorder();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(recorder);
        LockObservations observations = new LockObservations(registry, new MetricNames(), BOUND);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(redis.host(), redis.port()));
        factory.afterPropertiesSet();
        factory.start();
        try (RedisLockService locks = RedisLockService.builder(new StringRedisTemplate(factory))
            .restartGrace(Duration.ZERO)
            .listener(observations)
            .build()) {
            LockOptions shortLease = LockOptions.defaults().withLeaseTime(Duration.ofMillis(200));
            List<LockHandle> leftToRunOut = IntStream.range(0, BOUND)
                .mapToObj(i -> locks.acquire("job:" + i, shortLease.withName("left")))
                .toList();
            Await.until(Duration.ofSeconds(5), () -> leftToRunOut.stream().noneMatch(LockHandle::isHeld),
                    "the fixed leases ran out");

            locks.acquire("job:next", LockOptions.defaults().withName("next")).release();

            assertThat(recorder.named(LockObservations.LOCKED)).extracting(c -> c.getContextualName())
                .as("the later lock is observed; the lapsed ones were ended to make room")
                .contains("locked next")
                .filteredOn("locked left"::equals)
                .hasSize(BOUND);
        }
        finally {
            factory.destroy();
        }
    }
}
