package dev.distlock.spring.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
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

            assertThat(context.getBean(Shop.class).buy("sku-9f3a")).isEqualTo(ObservedLockService.LOCKED);

            String name = "LockObservationTest.Shop.buy";
            assertThat(recorder.stopped).extracting(Observation.Context::getContextualName)
                .containsExactly("acquire " + name, "inventory update", "locked " + name);
            Observation.Context acquire = recorder.stopped.get(0);
            assertThat(acquire.getName()).isEqualTo(ObservedLockService.ACQUIRE);
            assertThat(low(acquire)).containsExactlyInAnyOrderEntriesOf(
                    Map.of("distlock.name", name, "distlock.mode", "exclusive", "distlock.outcome", "acquired"));
            Observation.Context work = recorder.stopped.get(1);
            assertThat(work.getParentObservation().getContextView().getName()).isEqualTo(ObservedLockService.LOCKED);
            Observation.Context locked = recorder.stopped.get(2);
            assertThat(low(locked)).containsExactlyInAnyOrderEntriesOf(
                    Map.of("distlock.name", name, "distlock.mode", "exclusive"));
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

            List<Observation.Context> acquires = recorder.named(ObservedLockService.ACQUIRE);
            assertThat(acquires).extracting(observation -> low(observation).get("distlock.outcome"))
                .containsExactly("acquired", "timed_out", "timed_out");
            assertThat(acquires.get(1).getError()).isInstanceOf(LockTimeoutException.class);
            assertThat(acquires.get(2).getError()).isNull();
            assertThat(recorder.named(ObservedLockService.LOCKED)).hasSize(1);
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
            assertThat(current).isEqualTo("locked account+stock");
            assertThat(registry.getCurrentObservation()).isNull();

            LockHandle shortLease = locks.acquire("job:1", LockOptions.defaults().withLeaseTime(Duration.ofMillis(50)));
            // the local deadline ends first (it counts from before the grant was sent); wait for Redis's too
            Await.until(Duration.ofSeconds(5),
                    () -> !shortLease.isHeld() && "0".equals(redis.call("EXISTS", "distlock:{job:1}:lock")),
                    "the fixed lease runs out");
            assertThatThrownBy(shortLease::release).isInstanceOf(LeaseLostException.class);
            shortLease.release(); // a second release stops nothing more

            List<Observation.Context> locked = recorder.named(ObservedLockService.LOCKED);
            assertThat(locked).extracting(Observation.Context::getContextualName)
                .containsExactly("locked account+stock", "locked job");
            assertThat(locked.get(0).getError()).isNull();
            assertThat(locked.get(1).getError()).isInstanceOf(LeaseLostException.class);
        });
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
