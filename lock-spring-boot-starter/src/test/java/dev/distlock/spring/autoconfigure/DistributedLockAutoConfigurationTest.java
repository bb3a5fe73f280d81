package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.spring.DistributedLockAdvisor;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.OnNotAcquired;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class DistributedLockAutoConfigurationTest {

    @Test
    void registersARedisLockServiceThatTheContextClosesOnShutdown(RedisNode redis) {
        AtomicReference<LockService> service = new AtomicReference<>();
        LockContexts.runner(redis).run(context -> {
            assertThat(context).hasSingleBean(LockService.class).hasSingleBean(RedisLockService.class)
                .hasSingleBean(DistributedLockAdvisor.class);
            service.set(context.getBean(LockService.class));
            try (LockHandle lock = service.get().acquire("auto")) {
                assertThat(redis.lockField(LockContexts.lockHash("auto"), "owner")).isEqualTo(lock.ownerToken());
            }
        });
        assertThatThrownBy(() -> service.get().acquire("after-close")).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("closed");
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnLockService(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(OwnLockServiceConfiguration.class).run(context -> {
            assertThat(context).hasSingleBean(LockService.class).hasBean("ownLockService")
                .doesNotHaveBean("redisLockService");
            try (LockHandle lock = context.getBean(LockService.class).acquire("own")) {
                assertThat(redis.call("EXISTS", "own-prefix:{own}:lock")).isEqualTo("1");
            }
        });
    }

    @Test
    void distlockEnabledFalseTurnsTheWholeStarterOff(RedisNode redis) {
        LockContexts.runner(redis).withPropertyValues("distlock.enabled=false").run(context -> {
            assertThat(context).hasNotFailed()
                .doesNotHaveBean(LockService.class)
                .doesNotHaveBean(DistributedLockAdvisor.class)
                .doesNotHaveBean(DistributedLockProperties.class);
        });
    }

    @Test
    void defaultsApplyWhenNothingIsSet(RedisNode redis) {
        LockContexts.runner(redis).run(context -> {
            DistributedLockProperties properties = context.getBean(DistributedLockProperties.class);
            assertThat(properties.isEnabled()).isTrue();
            assertThat(properties.getKeyPrefix()).isEqualTo("distlock");
            assertThat(properties.getDefaultWaitTime()).isEqualTo(Duration.ofSeconds(10));
            assertThat(properties.getWatchdog().getLease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(properties.getWatchdog().getRenewalInterval()).isNull();
            assertThat(properties.getTokenRetention()).as("the library's retry window").isNull();
            DistributedLockSafetyProperties safety = context.getBean(DistributedLockSafetyProperties.class);
            assertThat(safety.getEvictionPolicyCheck()).isEqualTo(dev.distlock.redis.EvictionPolicyCheck.WARN);
            assertThat(properties.getOnNotAcquired()).isEqualTo(DistributedLockProperties.NotAcquiredAction.THROW);
            assertThat(properties.getAspect().getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE - 100);
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
                .isEqualTo(Ordered.LOWEST_PRECEDENCE - 100);
        });
    }

    @Test
    void bindsEveryPropertyAndTheServiceUsesThem(RedisNode redis) {
        LockContexts.runner(redis)
            .withPropertyValues("distlock.enabled=true", "distlock.key-prefix=orders",
                    "distlock.default-wait-time=150ms", "distlock.watchdog.lease=5s",
                    "distlock.watchdog.renewal-interval=1s", "distlock.token-retention=2m",
                    "distlock.on-not-acquired=skip", "distlock.aspect.order=42", "distlock.max-key-length=16")
            .run(context -> {
                DistributedLockProperties properties = context.getBean(DistributedLockProperties.class);
                assertThat(properties.getKeyPrefix()).isEqualTo("orders");
                assertThat(properties.getDefaultWaitTime()).isEqualTo(Duration.ofMillis(150));
                assertThat(properties.getWatchdog().getLease()).isEqualTo(Duration.ofSeconds(5));
                assertThat(properties.getWatchdog().getRenewalInterval()).isEqualTo(Duration.ofSeconds(1));
                assertThat(properties.getTokenRetention()).isEqualTo(Duration.ofMinutes(2));
                assertThat(properties.getOnNotAcquired()).isEqualTo(DistributedLockProperties.NotAcquiredAction.SKIP);
                assertThat(properties.getOnNotAcquired().toAnnotationValue()).isEqualTo(OnNotAcquired.SKIP);
                assertThat(properties.getAspect().getOrder()).isEqualTo(42);
                assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(42);

                LockService locks = context.getBean(LockService.class);
                String hash = "orders:{bound}:lock";
                LockHandle lock = locks.acquire("bound");
                long leaseLeft = Long.parseLong(redis.call("PTTL", hash));
                assertThat(leaseLeft).isBetween(1L, 5000L); // the watchdog lease, not the default 30s
                assertThatThrownBy(() -> locks.acquire("bound", LockOptions.defaults().withOwner(new Object())))
                    .isInstanceOfSatisfying(LockTimeoutException.class, timeout -> assertThat(timeout.waited())
                        .isGreaterThanOrEqualTo(Duration.ofMillis(150)).isLessThan(Duration.ofSeconds(5)));
                assertThatThrownBy(() -> locks.acquire("k".repeat(17))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key must be at most 16 characters");
                lock.release();
                long retentionLeft = Long.parseLong(redis.call("PTTL", hash));
                assertThat(retentionLeft).isBetween(60_000L, 120_000L); // the token retention, not the default 1h
            });
    }

    @ParameterizedTest
    @CsvSource({ "distlock.hand-off.limit=16, true", "distlock.hand-off.limit=0, false" })
    void handOffLimitZeroTurnsLocalHandOffsOff(String setting, boolean handsOff, RedisNode redis) {
        AtomicInteger handOffs = new AtomicInteger();
        LockContexts.runner(redis).withPropertyValues(setting, "distlock.hand-off.max-time=50ms")
            .withBean("handOffs", LockEventListener.class, () -> event -> {
                if (event instanceof LockEvent.HandedOff) {
                    handOffs.incrementAndGet();
                }
            })
            .run(context -> {
                assertThat(context.getBean(DistributedLockProperties.class).getHandOff().getMaxTime())
                    .isEqualTo(Duration.ofMillis(50));
                LockService locks = context.getBean(LockService.class);
                ExecutorService threads = Executors.newFixedThreadPool(4);
                try {
                    List<Future<?>> contenders = new ArrayList<>();
                    for (int t = 0; t < 4; t++) { // threads of one service contending: they hand off unless turned off
                        contenders.add(threads.submit(() -> {
                            for (int i = 0; i < 50; i++) {
                                locks.acquire("hot", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)))
                                    .release();
                            }
                        }));
                    }
                    for (Future<?> contender : contenders) {
                        contender.get(60, TimeUnit.SECONDS);
                    }
                }
                finally {
                    threads.shutdownNow();
                }
                // a HandedOff event follows each hand-off handoff.lua made
                assertThat(handOffs.get() > 0).as("whether the service handed the lock off").isEqualTo(handsOff);
            });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distlock.key-prefix=               | distlock.key-prefix must not be null or blank
            distlock.key-prefix=a{b}           | distlock.key-prefix must not contain braces
            distlock.default-wait-time=-1s     | distlock.default-wait-time must not be negative, but was -1.0 s
            distlock.watchdog.lease=-5s        | distlock.watchdog.lease must be between 1ms and 7 days
            distlock.watchdog.lease=0          | distlock.watchdog.lease must be between 1ms and 7 days
            distlock.watchdog.lease=8d         | distlock.watchdog.lease must be between 1ms and 7 days
            distlock.watchdog.renewal-interval=30s | (30.0 s) must be shorter than distlock.watchdog.lease (30.0 s)
            distlock.watchdog.renewal-interval=0   | distlock.watchdog.renewal-interval must be at least 1ms
            distlock.token-retention=10ms      | distlock.token-retention must be between 1s and 7 days, but was 10 ms
            distlock.token-retention=30d       | distlock.token-retention must be between 1s and 7 days
            distlock.max-key-length=0          | distlock.max-key-length must be between 1 and 1024, but was 0
            distlock.max-key-length=2048       | distlock.max-key-length must be between 1 and 1024, but was 2048
            distlock.on-not-acquired=call_handler | distlock.on-not-acquired
            distlock.replica-acknowledgements.replicas=-2 | distlock.replica-acknowledgements.replicas must be -1 (by topology), 0 (off) or positive
            distlock.replica-acknowledgements.timeout=0   | distlock.replica-acknowledgements.timeout must be between 1ms
            distlock.hand-off.limit=-1         | distlock.hand-off.limit must not be negative
            distlock.hand-off.max-time=0s      | distlock.hand-off.max-time must be positive
            distlock.safety.restart-grace=-1s  | distlock.safety.restart-grace must be between 0 and 7 days
            """)
    void invalidPropertiesStopStartupWithAMessageNamingTheProperty(String property, String message,
            RedisNode redis) {
        LockContexts.runner(redis).withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            String name = property.substring(0, property.indexOf('='));
            assertThat(messages(context.getStartupFailure())).contains(name).contains(message);
        });
    }

    @Test
    void withoutARedisConnectionStartupFailsSayingWhatToAdd() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
                    DistributedLockAutoConfiguration.class, DistributedLockAspectAutoConfiguration.class))
            .run(context -> {
                assertThat(context).hasFailed();
                Throwable failure = context.getStartupFailure();
                assertThat(failure).hasRootCauseInstanceOf(MissingRedisConnectionException.class);
                assertThat(messages(failure)).contains("no StringRedisTemplate or RedisConnectionFactory bean")
                    .contains("spring-boot-starter-data-redis").contains("spring.data.redis");
                FailureAnalysis analysis = new MissingRedisConnectionFailureAnalyzer().analyze(failure);
                assertThat(analysis).isNotNull();
                assertThat(analysis.getDescription()).startsWith("distlock needs a Redis connection");
                assertThat(analysis.getAction()).contains("spring-boot-starter-data-redis")
                    .contains("spring.data.redis.host");
            });
    }

    @Test
    void aBootApplicationWithoutRedisReportsTheFailureAnalysis(CapturedOutput output) {
        SpringApplication application = new SpringApplication(NoRedisApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatThrownBy(application::run).hasRootCauseInstanceOf(MissingRedisConnectionException.class);
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("distlock needs a Redis connection, but the application context has no StringRedisTemplate")
            .contains("Add the spring-boot-starter-data-redis dependency and configure spring.data.redis");
    }

    @Test
    void usesTheConnectionFactoryWhenThereIsNoStringRedisTemplate(RedisNode redis) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistributedLockAutoConfiguration.class))
            .withBean(LettuceConnectionFactory.class,
                    () -> new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port())))
            .run(context -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(StringRedisTemplate.class);
                try (LockHandle lock = context.getBean(LockService.class).acquire("factory-only")) {
                    assertThat(redis.call("EXISTS", LockContexts.lockHash("factory-only"))).isEqualTo("1");
                }
            });
    }

    @Test
    void everyLockEventListenerBeanHearsTheEventsEvenWhenAnotherFails(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(ListenersConfiguration.class).run(context -> {
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.acquire("heard:1");
            assertThat(locks.tryAcquire("heard:1", LockOptions.defaults().withOwner(new Object()))).isEmpty();
            held.release();
            assertThat(context.getBean("first", RecordingListener.class).events)
                .containsExactly("acquired heard:1", "not acquired heard:1 (heard)", "released heard:1");
            assertThat(context.getBean("second", RecordingListener.class).events)
                .containsExactly("acquired heard:1", "not acquired heard:1 (heard)", "released heard:1");
        });
    }

    private static String messages(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            text.append(cause.getMessage()).append('\n');
        }
        return text.toString();
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLockServiceConfiguration {

        @Bean(destroyMethod = "close")
        RedisLockService ownLockService(StringRedisTemplate redis) {
            return RedisLockService.builder(redis).keyPrefix("own-prefix").restartGrace(Duration.ZERO).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DistributedLockAutoConfiguration.class)
    static class NoRedisApplication {
    }

    @Configuration(proxyBeanMethods = false)
    static class ListenersConfiguration {

        @Bean
        RecordingListener first() {
            return new RecordingListener();
        }

        @Bean
        LockEventListener failing() {
            return event -> {
                throw new IllegalStateException("listener failure for the test");
            };
        }

        @Bean
        RecordingListener second() {
            return new RecordingListener();
        }
    }

    /** Records the events a listener bean hears. */
    static class RecordingListener implements LockEventListener {

        final List<String> events = new ArrayList<>();

        @Override
        public void onEvent(LockEvent event) {
            if (event instanceof LockEvent.Acquired acquired) {
                this.events.add("acquired " + acquired.lock().key());
            }
            else if (event instanceof LockEvent.NotAcquired refused) {
                this.events.add("not acquired " + refused.key() + " (" + refused.name() + ")");
            }
            else if (event instanceof LockEvent.Released released) {
                this.events.add("released " + released.lock().key());
            }
        }
    }
}
