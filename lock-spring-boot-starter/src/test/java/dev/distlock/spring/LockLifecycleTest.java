package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** How long an annotated call holds its lock, how it waits, re-enters, and reports a lost lease. */
@RedisTest
class LockLifecycleTest {

    private static final Duration HOLD = Duration.ofMillis(700);

    @Test
    void nestedCallsWithTheSameKeyReenterOnTheSameThread(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Stock stock = context.getBean(Stock.class);
            Nesting nesting = stock.reserveAndCount("42");
            assertThat(nesting.innerKey()).isEqualTo("stock:42");
            assertThat(nesting.innerToken()).isEqualTo(nesting.outerToken());
            assertThat(nesting.outerAfterInner()).isEqualTo(nesting.outerToken());
            assertThat(CurrentLock.handle()).isEmpty();
            assertThat(redis.lockField(LockContexts.lockHash("stock:42"), "owner")).isNull();
        });
    }

    @Test
    void currentLockGivesTheFencingTokenOfTheHeldLock(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Stock stock = context.getBean(Stock.class);
            long first = stock.fencedWrite("7");
            long second = stock.fencedWrite("7");
            assertThat(second).isGreaterThan(first);
            assertThat(redis.lockField(LockContexts.lockHash("stock:7"), "fence")).isEqualTo(Long.toString(second));
            assertThat(CurrentLock.handle()).isEmpty();
            assertThatThrownBy(CurrentLock::required).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("No @DistributedLock method is running on this thread");
        });
    }

    @Test
    void holdAtLeastTurnsAwayARepeatedCallUntilTheTimeHasPassed(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            long start = System.nanoTime();
            assertThat(jobs.nightly()).isTrue();
            // released with a delay: held by nobody until 'until' (Redis ms; see delayed-release.lua)
            String[] now = redis.call("TIME").split("\n");
            long leftMillis = Long.parseLong(redis.lockField(LockContexts.lockHash("nightly"), "until"))
                    - (Long.parseLong(now[0]) * 1000 + Long.parseLong(now[1]) / 1000);
            // + 1: the delay's end rounds Redis's clock up to the ms (so the hold is never shorter), this read down
            assertThat(leftMillis).isPositive().isLessThanOrEqualTo(HOLD.toMillis() + 1);
            assertThat(jobs.nightly()).as("a repeat within holdAtLeast is skipped").isNull();
            Await.until(Duration.ofSeconds(5), () -> Boolean.TRUE.equals(jobs.nightly()), "the job runs again");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(HOLD);
            assertThat(jobs.runs()).isEqualTo(2);
        });
    }

    @Test
    void holdAtLeastAppliesWhenTheMethodThrowsToo(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            assertThatThrownBy(jobs::failing).isInstanceOf(IllegalStateException.class).hasMessage("job failed");
            assertThat(redis.lockField(LockContexts.lockHash("failing"), "owner")).isNotNull();
            assertThatThrownBy(jobs::failing).isInstanceOf(LockTimeoutException.class);
        });
    }

    @Test
    void waitTimeWaitsForTheHolderAndGivesUpAfterIt(RedisNode redis) throws Exception {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Stock stock = context.getBean(Stock.class);
            LockService locks = context.getBean(LockService.class);
            try (LockHandle other = locks.acquire("stock:9", LockOptions.defaults().withOwner(new Object()))) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> stock.reserveWaiting("9")).isInstanceOf(LockTimeoutException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
            }
            LockHandle other = locks.acquire("stock:9", LockOptions.defaults().withOwner(new Object()));
            ExecutorService caller = Executors.newSingleThreadExecutor();
            try {
                Future<String> waiting = caller.submit(() -> stock.reserveLongWait("9"));
                Await.until(Duration.ofSeconds(5), () -> redis.call("PUBSUB", "NUMSUB", "distlock:{stock:9}:released")
                    .endsWith("1"), "the call waits for the release");
                assertThat(waiting).isNotDone();
                other.release();
                assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo("reserved 9");
            }
            finally {
                caller.shutdownNow();
            }
        });
    }

    @Test
    void aFixedLeaseTimeIsNotRenewedAndTheDefaultIs(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Stock stock = context.getBean(Stock.class);
            Leases fixed = stock.withFixedLease("1");
            assertThat(fixed.renewing()).isZero();
            assertThat(fixed.pttl()).isPositive().isLessThanOrEqualTo(5000);
            Leases watched = stock.withWatchdog("1");
            assertThat(watched.renewing()).isEqualTo(1);
            assertThat(watched.pttl()).isGreaterThan(5000).isLessThanOrEqualTo(30_000);
            assertThat(context.getBean(RedisLockService.class).renewingCount()).isZero();
        });
    }

    @Test
    void aLostLeaseIsThrownAfterTheMethodReturns(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(LifecycleConfiguration.class).run(context -> {
            Stock stock = context.getBean(Stock.class);
            assertThatThrownBy(() -> stock.loseLease("3", false)).isInstanceOf(LeaseLostException.class);
            assertThat(stock.calls()).isEqualTo(1);
            assertThatThrownBy(() -> stock.loseLease("3", true)).isInstanceOf(IllegalStateException.class)
                .hasMessage("work failed")
                .satisfies(ex -> assertThat(ex.getSuppressed()).singleElement()
                    .isInstanceOf(LeaseLostException.class));
            assertThat(CurrentLock.handle()).isEmpty();
        });
    }

    record Nesting(String innerKey, long innerToken, long outerToken, long outerAfterInner) {
    }

    record Leases(int renewing, long pttl) {
    }

    @Configuration(proxyBeanMethods = false)
    static class LifecycleConfiguration {

        @Bean
        Inner inner() {
            return new Inner();
        }

        @Bean
        Stock stock(Inner inner, RedisLockService locks, RedisNodeCalls redis) {
            return new Stock(inner, locks, redis);
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        RedisNodeCalls redisNodeCalls(org.springframework.data.redis.core.StringRedisTemplate redis) {
            return new RedisNodeCalls(redis);
        }
    }

    /** Raw Redis access for the beans under test. */
    record RedisNodeCalls(org.springframework.data.redis.core.StringRedisTemplate redis) {

        long pttl(String key) {
            Long left = this.redis.getExpire(key, TimeUnit.MILLISECONDS);
            return (left != null) ? left : -3;
        }

        void delete(String key) {
            this.redis.delete(key);
        }
    }

    static class Inner {

        @DistributedLock(key = "'stock:' + #sku", waitTime = "0")
        public LockHandle count(String sku) {
            return CurrentLock.required();
        }
    }

    static class Stock {

        private final Inner inner;

        private final RedisLockService locks;

        private final RedisNodeCalls redis;

        private int calls;

        Stock(Inner inner, RedisLockService locks, RedisNodeCalls redis) {
            this.inner = inner;
            this.locks = locks;
            this.redis = redis;
        }

        public int calls() {
            return this.calls;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = "0")
        public Nesting reserveAndCount(String sku) {
            LockHandle outer = CurrentLock.required();
            LockHandle inner = this.inner.count(sku);
            return new Nesting(inner.key(), inner.fencingToken(), outer.fencingToken(),
                    CurrentLock.required().fencingToken());
        }

        @DistributedLock(key = "'stock:' + #sku")
        public long fencedWrite(String sku) {
            return CurrentLock.required().fencingToken();
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = "300ms")
        public String reserveWaiting(String sku) {
            return "reserved " + sku;
        }

        @DistributedLock(key = "'stock:' + #sku", waitTime = "10s")
        public String reserveLongWait(String sku) {
            return "reserved " + sku;
        }

        @DistributedLock(key = "'lease:' + #sku", leaseTime = "5s")
        public Leases withFixedLease(String sku) {
            return new Leases(this.locks.renewingCount(), this.redis.pttl(LockContexts.lockHash("lease:" + sku)));
        }

        @DistributedLock(key = "'lease:' + #sku")
        public Leases withWatchdog(String sku) {
            return new Leases(this.locks.renewingCount(), this.redis.pttl(LockContexts.lockHash("lease:" + sku)));
        }

        @DistributedLock(key = "'lost:' + #sku")
        public String loseLease(String sku, boolean fail) {
            this.calls++;
            this.redis.delete(LockContexts.lockHash("lost:" + sku));
            if (fail) {
                throw new IllegalStateException("work failed");
            }
            return "done";
        }
    }

    static class Jobs {

        private int runs;

        public int runs() {
            return this.runs;
        }

        @DistributedLock(key = "'nightly'", waitTime = "0", holdAtLeast = "700ms", onNotAcquired = OnNotAcquired.SKIP)
        public Boolean nightly() {
            this.runs++;
            return Boolean.TRUE;
        }

        @DistributedLock(key = "'failing'", waitTime = "0", holdAtLeast = "1m")
        public void failing() {
            throw new IllegalStateException("job failed");
        }
    }
}
