package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A method whose work goes on after it returns (a future, a reactive type) would run that work without the lock, which
 * is released when the method returns: such a declaration fails startup, naming the method and saying why.
 */
@RedisTest
class AsynchronousMethodTest {

    @ParameterizedTest
    @ValueSource(classes = { ReturnsCompletableFuture.class, ReturnsCompletionStage.class, ReturnsMono.class,
            ReturnsFlux.class, ReturnsPublisher.class })
    void aMethodReturningAnAsynchronousResultFailsStartup(Class<?> bean, RedisNode redis) {
        LockContexts.runner(redis).withBean(bean).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Invalid @DistributedLock on AsynchronousMethodTest." + bean.getSimpleName()
                    + ".run(): the method returns ")
            .hasMessageContaining("the lock would be released when the method returns, while that work still "
                    + "runs"));
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

    static class ReturnsCompletableFuture {

        @DistributedLock(key = "'async'")
        public CompletableFuture<String> run() {
            return CompletableFuture.supplyAsync(() -> "done");
        }
    }

    static class ReturnsCompletionStage {

        @DistributedLock(key = "'async'")
        public CompletionStage<String> run() {
            return CompletableFuture.supplyAsync(() -> "done");
        }
    }

    static class ReturnsMono {

        @DistributedLock(key = "'async'")
        public Mono<String> run() {
            return Mono.just("done");
        }
    }

    static class ReturnsFlux {

        @DistributedLock(key = "'async'")
        public Flux<String> run() {
            return Flux.just("done");
        }
    }

    static class ReturnsPublisher {

        @DistributedLock(key = "'async'")
        public Publisher<String> run() {
            return Mono.just("done");
        }
    }

    static class ReturnsValue {

        @DistributedLock(key = "'sync'")
        public String run() {
            return "done";
        }
    }
}
