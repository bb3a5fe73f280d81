package dev.distlock.spring.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockContexts;
import dev.distlock.spring.ScopedLockHandle;
import dev.distlock.spring.autoconfigure.DistributedLockObservationAutoConfiguration;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Observations of the wait for a lock and of the work under it, with the work's spans as the lock's children. */
@RedisTest
class LockObservationTest {

    private static ApplicationContextRunner runner(RedisNode redis) {
        return LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(DistributedLockObservationAutoConfiguration.class))
            .withUserConfiguration(Beans.class)
            .withPropertyValues("distlock.metrics.key-names=account,stock,job");
    }

    @Test
    void anAnnotatedMethodRunsInsideTheLockedObservationAfterTheAcquireObservation(RedisNode redis) {
        runner(redis).run(context -> {
            assertThat(context.getBean(LockService.class)).isInstanceOf(ObservedLockService.class);
            assertThat(context).hasSingleBean(RedisLockService.class);
            Recorder recorder = context.getBean(Recorder.class);

            assertThat(context.getBean(Shop.class).buy("sku-9f3a")).isEqualTo(LockObservations.LOCKED);

            String name = "LockObservationTest.Shop.buy";
            assertThat(recorder.stopped).extracting(Observation.Context::getContextualName)
                .containsExactly("acquire " + name, "inventory update", "locked " + name);
            Observation.Context acquire = recorder.stopped.get(0);
            assertThat(acquire.getName()).isEqualTo(LockObservations.ACQUIRE);
            assertThat(low(acquire)).containsExactlyInAnyOrderEntriesOf(
                    Map.of("distlock.name", name, "distlock.mode", "exclusive", "distlock.outcome", "acquired"));
            Observation.Context work = recorder.stopped.get(1);
            assertThat(work.getParentObservation().getContextView().getName()).isEqualTo(LockObservations.LOCKED);
            Observation.Context locked = recorder.stopped.get(2);
            assertThat(low(locked)).containsExactlyInAnyOrderEntriesOf(
                    Map.of("distlock.name", name, "distlock.mode", "exclusive", "distlock.handed.off", "false"));
            assertThat(locked.getHighCardinalityKeyValue("distlock.fencing.token").getValue()).matches("[0-9]+");
            assertThat(locked.getError()).isNull();
            recorder.assertNoKey("sku-9f3a");
        });
    }

    @Test
    void aLockHeldElsewhereEndsTheAcquireObservationAsTimedOut(RedisNode redis) {
        runner(redis).run(context -> {
            Recorder recorder = context.getBean(Recorder.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle held = locks.acquire("stock:sku-9f3a");
            LockOptions otherOwner = LockOptions.defaults().withOwner(new Object()).withWaitTime(Duration.ofMillis(20));
            assertThatThrownBy(() -> locks.acquire("stock:sku-9f3a", otherOwner))
                .isInstanceOf(LockTimeoutException.class);
            assertThat(locks.tryAcquire("stock:sku-9f3a", otherOwner)).isEmpty();
            held.release();

            List<Observation.Context> acquires = recorder.named(LockObservations.ACQUIRE);
            assertThat(acquires).extracting(observation -> low(observation).get("distlock.outcome"))
                .containsExactly("acquired", "timed_out", "timed_out");
            // refused is an outcome, not an error, whether the caller then throws (acquire) or not (tryAcquire)
            assertThat(acquires).extracting(Observation.Context::getError).containsOnlyNulls();
            assertThat(recorder.named(LockObservations.LOCKED)).hasSize(1);
            recorder.assertNoKey("sku-9f3a");
        });
    }

    @Test
    void executeLockedRunsTheWorkInTheLockedScopeAndALateReleaseIsTheLockedError(RedisNode redis) {
        runner(redis).run(context -> {
            Recorder recorder = context.getBean(Recorder.class);
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            LockService locks = context.getBean(LockService.class);
            String current = locks.executeLockedAll(List.of("account:1", "stock:2"), LockOptions.defaults(),
                    lock -> registry.getCurrentObservation().getContextView().getContextualName());
            assertThat(current).as("a key set's scope is its last key's").isEqualTo("locked stock");
            assertThat(registry.getCurrentObservation()).isNull();

            LockHandle shortLease = locks.acquire("job:1", LockOptions.defaults().withLeaseTime(Duration.ofMillis(50)));
            // the local deadline ends first (it counts from before the grant was sent); wait for Redis's too
            Await.until(Duration.ofSeconds(5),
                    () -> !shortLease.isHeld() && "0".equals(redis.call("EXISTS", "distlock:{job:1}:lock")),
                    "the fixed lease runs out");
            assertThatThrownBy(shortLease::release).isInstanceOf(LeaseLostException.class);
            shortLease.release(); // a second release stops nothing more

            List<Observation.Context> locked = recorder.named(LockObservations.LOCKED);
            assertThat(locked).extracting(Observation.Context::getContextualName)
                .containsExactlyInAnyOrder("locked account", "locked stock", "locked job");
            assertThat(locked.subList(0, 2)).extracting(Observation.Context::getError).containsOnlyNulls();
            assertThat(locked.get(2).getError()).isInstanceOf(LeaseLostException.class);
        });
    }

    @Test
    void nonBlockingAcquisitionsAndHandOffsAreObservedByTheSameRoute(RedisNode redis) {
        runner(redis).run(context -> {
            Recorder recorder = context.getBean(Recorder.class);
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle lock = locks.async().acquire("stock:sku-9f3a", LockOptions.defaults()).get(10, TimeUnit.SECONDS);
            try (ScopedLockHandle.Scope scope = ScopedLockHandle.openScope(lock)) {
                assertThat(registry.getCurrentObservation().getContextView().getContextualName())
                    .isEqualTo("locked stock");
            }
            lock.releaseAsync().get(10, TimeUnit.SECONDS);
            Await.until(Duration.ofSeconds(10), () -> recorder.named(LockObservations.LOCKED).size() == 1,
                    "the non-blocking release ends the locked observation");
            assertThat(recorder.named(LockObservations.ACQUIRE)).singleElement()
                .satisfies(acquire -> assertThat(low(acquire)).containsEntry("distlock.outcome", "acquired"));

            HotKey.hammer(locks, "job:hot", () -> handedOff(recorder) > 0, Duration.ofSeconds(30));
            assertThat(handedOff(recorder)).as("locked observations ended by a hand-off").isPositive();
            recorder.assertNoKey("sku-9f3a");
        });
    }

    private static long handedOff(Recorder recorder) {
        return recorder.named(LockObservations.LOCKED)
            .stream()
            .filter(locked -> "true".equals(low(locked).get("distlock.handed.off")))
            .count();
    }

    private static Map<String, String> low(Observation.Context context) {
        return context.getLowCardinalityKeyValues()
            .stream()
            .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Recorder recorder() {
            return new Recorder();
        }

        @Bean
        ObservationRegistry observationRegistry(Recorder recorder) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(recorder);
            return registry;
        }

        @Bean
        Shop shop(ObservationRegistry registry) {
            return new Shop(registry);
        }
    }

    static class Shop {

        private final ObservationRegistry registry;

        Shop(ObservationRegistry registry) {
            this.registry = registry;
        }

        /** Starts a span of its own and answers which observation was current. */
        @DistributedLock(key = "'stock:' + #sku", waitTime = "5s")
        public String buy(String sku) {
            String current = this.registry.getCurrentObservation().getContextView().getName();
            Observation.createNotStarted("inventory.update", this.registry)
                .contextualName("inventory update")
                .observe(() -> {
                });
            return current;
        }
    }

    /** Keeps every stopped observation. */
    static class Recorder implements ObservationHandler<Observation.Context> {

        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStop(Observation.Context context) {
            this.stopped.add(context);
        }

        List<Observation.Context> named(String name) {
            return this.stopped.stream().filter(context -> context.getName().equals(name)).toList();
        }

        /** No key value of any observation holds the id. */
        void assertNoKey(String id) {
            for (Observation.Context context : this.stopped) {
                for (KeyValue value : context.getAllKeyValues()) {
                    assertThat(value.getValue()).as("%s of %s", value.getKey(), context.getName()).doesNotContain(id);
                }
                assertThat(context.getContextualName()).doesNotContain(id);
            }
        }
    }
}
