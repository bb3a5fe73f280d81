package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.spring.autoconfigure.DistributedLockTransactionAutoConfiguration;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A {@code @Transactional} method under a 1-second lease works past it while a second owner takes the lock: with a
 * real transaction manager (H2, DataSourceTransactionManager) the first transaction is rolled back, not committed
 * after the second, and the caller gets the {@link LeaseLostException}. A transaction that ends within its lease
 * commits.
 */
@RedisTest
class LeaseLostTransactionTest {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aTransactionWhoseLeaseWasLostRollsBackInsteadOfCommitting(RedisNode redis) {
        runner(redis).run(context -> {
            Bookings bookings = context.getBean(Bookings.class);
            LockService locks = context.getBean(LockService.class);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            jdbc.execute("create table booking (sku varchar(20), token bigint)");
            CountDownLatch inserted = new CountDownLatch(1);
            CountDownLatch secondCommitted = new CountDownLatch(1);
            ExecutorService thread = Executors.newSingleThreadExecutor();
            try {
                Future<?> first = thread.submit(() -> bookings.book("sku-1", () -> {
                    inserted.countDown();
                    await(secondCommitted);
                }));
                await(inserted);
                long secondToken;
                // Waits for the first lease to run out, then books while the first is still at work.
                try (LockHandle second = locks.acquire("booking:sku-1",
                        LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)))) {
                    secondToken = second.fencingToken();
                    jdbc.update("insert into booking (sku, token) values (?, ?)", "sku-1", secondToken);
                }
                secondCommitted.countDown();
                assertThat(first).failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(LeaseLostException.class)
                    .withMessageContaining("before the transaction committed");
                assertThat(tokens(jdbc)).as("only the second owner's booking is committed")
                    .containsExactly(secondToken);
            }
            finally {
                thread.shutdownNow();
            }
        });
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aTransactionWithinItsLeaseCommits(RedisNode redis) {
        runner(redis).run(context -> {
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            jdbc.execute("create table booking (sku varchar(20), token bigint)");
            context.getBean(Bookings.class).book("sku-2", () -> {
            });
            assertThat(tokens(jdbc)).hasSize(1);
        });
    }

    private static List<Long> tokens(JdbcTemplate jdbc) {
        return jdbc.queryForList("select token from booking", Long.class);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertThat(latch.await(15, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static ApplicationContextRunner runner(RedisNode redis) {
        return LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(BootAutoConfigurations.DATA_SOURCE,
                    BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER, BootAutoConfigurations.JDBC_TEMPLATE,
                    BootAutoConfigurations.TRANSACTION, BootAutoConfigurations.TRANSACTION_MANAGER_CUSTOMIZATION,
                    DistributedLockTransactionAutoConfiguration.class))
            .withUserConfiguration(BookingsConfiguration.class)
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @Configuration(proxyBeanMethods = false)
    static class BookingsConfiguration {

        @Bean
        Bookings bookings(JdbcTemplate jdbc) {
            return new Bookings(jdbc);
        }
    }

    static class Bookings {

        private final JdbcTemplate jdbc;

        Bookings(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @DistributedLock(key = "'booking:' + #sku", leaseTime = "1s")
        public void book(String sku, Runnable work) {
            this.jdbc.update("insert into booking (sku, token) values (?, ?)", sku,
                    CurrentLock.required().fencingToken());
            work.run();
        }
    }
}
