package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.spring.BootAutoConfigurations;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * SIGTERM while Redis is down: a scheduled job waiting in {@code tryAcquire} (30 s wait time, Lettuce's default 60 s
 * command timeout) must not hold the application's shutdown. The context closes within 5 s, and the waiting call has
 * ended by then.
 */
@RedisTest
class ShutdownWithRedisDownTest {

    @Test
    void theApplicationClosesWithinFiveSecondsWhileAJobWaitsForADownRedis(RedisServers servers) {
        RedisNode redis = servers.start();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(JobApplication.class)
            .web(WebApplicationType.NONE)
            .run("--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redis.port());
        Duration closing;
        Job job = context.getBean(Job.class);
        try {
            Await.until(Duration.ofSeconds(10), () -> job.runs.get() > 0, "the job runs with Redis up");
            redis.kill();
            Await.until(Duration.ofSeconds(10), () -> job.waitingFor().compareTo(Duration.ofMillis(300)) > 0,
                    "a job run waits for the lock with Redis down");
        }
        finally {
            long start = System.nanoTime();
            context.close();
            closing = Duration.ofNanos(System.nanoTime() - start);
        }
        assertThat(closing).as("closing the context with Redis down").isLessThan(Duration.ofSeconds(5));
        Await.until(Duration.ofSeconds(1), () -> job.waitingSince.get() == 0, "the waiting call has ended");
    }

    @Configuration(proxyBeanMethods = false)
    @Import(BootAutoConfigurations.DataRedis.class)
    @ImportAutoConfiguration({ TaskSchedulingAutoConfiguration.class,
            DistributedLockAutoConfiguration.class })
    @EnableScheduling
    static class JobApplication {

        @Bean
        Job job(LockService locks) {
            return new Job(locks);
        }
    }

    static class Job {

        final AtomicInteger runs = new AtomicInteger();

        final AtomicLong waitingSince = new AtomicLong();

        private final LockService locks;

        Job(LockService locks) {
            this.locks = locks;
        }

        Duration waitingFor() {
            long since = this.waitingSince.get();
            return (since == 0) ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
        }

        @Scheduled(fixedDelay = 50)
        void run() {
            this.runs.incrementAndGet();
            this.waitingSince.set(System.nanoTime());
            try {
                this.locks.tryAcquire("nightly", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)))
                    .ifPresent(lock -> lock.release());
            }
            finally {
                this.waitingSince.set(0);
            }
        }
    }
}
