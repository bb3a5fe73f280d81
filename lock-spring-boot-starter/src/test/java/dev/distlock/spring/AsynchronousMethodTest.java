package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.reactor.ReactiveLocks;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A method whose work goes on after it returns holds its lock until that work is done: a returned future until it
 * completes, a returned Mono or Flux from subscription until it completes, fails or is cancelled. Result types whose
 * lock could not be held so fail startup, naming the method and saying why.
 */
@RedisTest
class AsynchronousMethodTest {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    @Test
    void aFutureMethodHoldsItsLockUntilTheFutureCompletes(RedisNode redis) {
        LockContexts.runner(redis).withBean(FutureWork.class).run(context -> {
            FutureWork work = context.getBean(FutureWork.class);
            CompletableFuture<String> first = work.run("first");
            Await.until(LIMIT, () -> FutureWork.locks.size() == 1, "the first call's body runs under the lock");
            assertThat(FutureWork.locks.get(0)).as("CurrentLock in the method body").isNotNull();
            // the method returned, but its future has not completed: the lock is still held, the second is skipped
            assertThat(work.run("second").get(10, TimeUnit.SECONDS)).isNull();
            assertThat(FutureWork.started).containsExactly("first");
            FutureWork.finish.complete("done");
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("done first");
            assertThat(redis.lockField(LockContexts.lockHash("future"), "owner")).isNull();
            FutureWork.finish = new CompletableFuture<>();
            CompletableFuture<String> third = work.run("third");
            FutureWork.finish.complete("again");
            assertThat(third.get(10, TimeUnit.SECONDS)).isEqualTo("again third");
        });
    }

    @Test
    void aMonoMethodHoldsItsLockFromSubscriptionUntilItCompletes(RedisNode redis) {
        LockContexts.runner(redis).withBean(MonoWork.class).run(context -> {
            MonoWork work = context.getBean(MonoWork.class);
            Mono<String> first = work.run("first");
            assertThat(MonoWork.started).as("nothing runs before subscription").isEmpty();
            CompletableFuture<String> firstResult = first.toFuture();
            Await.until(LIMIT, () -> MonoWork.started.size() == 1, "the first call runs once subscribed");
            assertThat(work.run("second").blockOptional(Duration.ofSeconds(10))).as("skipped: the lock is held")
                .isEmpty();
            MonoWork.finish.tryEmitValue("done");
            assertThat(firstResult.get(10, TimeUnit.SECONDS)).isEqualTo("done first (lock in context)");
            assertThat(redis.lockField(LockContexts.lockHash("mono"), "owner")).isNull();
        });
    }

    @Test
    void aFluxMethodHoldsItsLockUntilTheLastValue(RedisNode redis) {
        LockContexts.runner(redis).withBean(FluxWork.class).run(context -> {
            FluxWork work = context.getBean(FluxWork.class);
            List<String> seen = new CopyOnWriteArrayList<>();
            work.run().doOnNext(value -> seen.add(value + ":" + (redis.lockField(LockContexts.lockHash("flux"),
                    "owner") != null ? 1 : 0))).blockLast(Duration.ofSeconds(10));
            assertThat(seen).containsExactly("a:1", "b:1", "c:1");
            assertThat(redis.lockField(LockContexts.lockHash("flux"), "owner")).isNull();
        });
    }

    @Test
    void cancellingAWaitingMonoLeavesNothingHeld(RedisNode redis) {
        LockContexts.runner(redis).withBean(WaitingMono.class).run(context -> {
            WaitingMono work = context.getBean(WaitingMono.class);
            LockHandle holder = context.getBean(LockService.class).acquire("waiting");
            Disposable waiting = work.run().subscribe();
            Await.until(LIMIT, () -> redis.call("PUBSUB", "NUMSUB", "distlock:{waiting}:released").endsWith("1"),
                    "the call waits for the lock");
            waiting.dispose();
            holder.release();
            Optional<LockHandle> next = Optional.empty();
            for (int i = 0; i < 3 && next.isEmpty(); i++) {
                next = context.getBean(LockService.class).tryAcquire("waiting");
            }
            assertThat(next).as("nobody took the lock for the cancelled call").isPresent();
            next.get().release();
            assertThat(WaitingMono.calls.get()).as("the cancelled call's method never ran").isZero();
        });
    }

    @Test
    void aWaitingFutureCallItsCallerTimedOutNeverRunsAndLeavesNothingHeld(RedisNode redis) {
        LockContexts.runner(redis).withBean(WaitingFuture.class).run(context -> {
            WaitingFuture work = context.getBean(WaitingFuture.class);
            LockService locks = context.getBean(LockService.class);
            LockHandle holder = locks.acquire("waiting-future");
            CompletableFuture<String> waiting = work.run().orTimeout(200, TimeUnit.MILLISECONDS);
            Await.until(LIMIT, waiting::isDone, "the caller's timeout fires");
            holder.release();
            Await.until(LIMIT, () -> {
                Optional<LockHandle> next = locks.tryAcquire("waiting-future");
                next.ifPresent(LockHandle::release);
                return next.isPresent();
            }, "nobody keeps the lock for the call its caller gave up");
            assertThat(WaitingFuture.calls.get()).as("the abandoned call's method never ran").isZero();
        });
    }

    @ParameterizedTest
    @ValueSource(classes = { ReturnsFlowPublisher.class, ReturnsOwnStage.class, HoldsAtLeast.class })
    void aResultWhoseLockCouldNotBeHeldFailsStartup(Class<?> bean, RedisNode redis) {
        LockContexts.runner(redis).withBean(bean).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Invalid @DistributedLock on AsynchronousMethodTest." + bean.getSimpleName()
                    + ".run(): "));
    }

    @Test
    void aMethodReturningAValueStillStarts(RedisNode redis) {
        LockContexts.runner(redis).withBean(ReturnsValue.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(ReturnsValue.class).run()).isEqualTo("done");
        });
    }

    @Test
    void anAsyncMethodHoldsTheLockWhileItsWorkRunsOnTheExecutor(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(AsyncConfiguration.class).run(context -> {
            assertThat(context).hasNotFailed();
            AsyncWork work = context.getBean(AsyncWork.class);
            CompletableFuture<String> first = work.run();
            assertThat(work.awaitStarted()).isTrue();
            // the first call's work is running on the executor and holds the lock: the second is turned away
            assertThat(work.run().get(10, TimeUnit.SECONDS)).isNull();
            work.finish();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("done");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {

        @Bean
        AsyncWork asyncWork() {
            return new AsyncWork();
        }
    }

    static class AsyncWork { // through its proxy: methods, not fields

        private final CountDownLatch started = new CountDownLatch(1);

        private final CountDownLatch finish = new CountDownLatch(1);

        public boolean awaitStarted() throws InterruptedException {
            return this.started.await(10, TimeUnit.SECONDS);
        }

        public void finish() {
            this.finish.countDown();
        }

        @Async
        @DistributedLock(key = "'async-work'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public CompletableFuture<String> run() throws InterruptedException {
            this.started.countDown();
            if (!this.finish.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not finished in time");
            }
            return CompletableFuture.completedFuture("done");
        }
    }

    static class ReturnsValue {

        @DistributedLock(key = "'sync'")
        public String run() {
            return "done";
        }
    }

    static class FutureWork {

        // static: the test reaches the bean through its proxy, which has fields of its own
        static final List<String> started = new CopyOnWriteArrayList<>();

        static final List<LockHandle> locks = new CopyOnWriteArrayList<>();

        static volatile CompletableFuture<String> finish = new CompletableFuture<>();

        @DistributedLock(key = "'future'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public CompletableFuture<String> run(String call) {
            started.add(call);
            locks.add(CurrentLock.required());
            return finish.thenApply(value -> value + " " + call);
        }
    }

    static class MonoWork {

        static final List<String> started = new CopyOnWriteArrayList<>();

        static final Sinks.One<String> finish = Sinks.one();

        @DistributedLock(key = "'mono'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public Mono<String> run(String call) {
            started.add(call);
            return finish.asMono()
                .flatMap(value -> Mono.deferContextual(context -> Mono.just(value + " " + call
                        + ((ReactiveLocks.current(context) != null) ? " (lock in context)" : ""))));
        }
    }

    static class FluxWork {

        @DistributedLock(key = "'flux'")
        public Flux<String> run() {
            return Flux.just("a", "b", "c").delayElements(Duration.ofMillis(20));
        }
    }

    static class WaitingMono {

        static final AtomicInteger calls = new AtomicInteger();

        @DistributedLock(key = "'waiting'", waitTime = "1m")
        public Mono<String> run() {
            calls.incrementAndGet();
            return Mono.just("ran");
        }
    }

    static class WaitingFuture {

        static final AtomicInteger calls = new AtomicInteger();

        @DistributedLock(key = "'waiting-future'", waitTime = "1m")
        public CompletableFuture<String> run() {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }
    }

    static class ReturnsFlowPublisher {

        @DistributedLock(key = "'async'")
        public Flow.Publisher<String> run() {
            return subscriber -> { };
        }
    }

    static class ReturnsOwnStage {

        @DistributedLock(key = "'async'")
        public OwnStage run() {
            return new OwnStage();
        }
    }

    static class OwnStage extends CompletableFuture<String> {
    }

    static class HoldsAtLeast {

        @DistributedLock(key = "'async'", holdAtLeast = "1s")
        public Mono<String> run() {
            return Mono.just("done");
        }
    }
}
