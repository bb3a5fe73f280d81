package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Isolation;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * With the default advisor order the lock is taken before a {@code @Transactional} method's transaction begins and
 * released after it commits, so concurrent read-modify-write transactions (SELECT then UPDATE, READ_COMMITTED, on H2
 * with a real transaction manager) lose no update. The control puts the lock inside the transaction: the next caller
 * then reads before the previous commit, and an update is lost, deterministically, by holding the first transaction
 * between its lock release and its commit until the second has read.
 */
@RedisTest
class TransactionBoundaryTest {

    private static final int THREADS = 4;

    private static final int DEPOSITS_PER_THREAD = 25;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withTheDefaultOrderConcurrentTransactionsLoseNoUpdate(RedisNode redis) {
        runner(redis).withUserConfiguration(AccountsConfiguration.class).run(context -> {
            Accounts accounts = context.getBean(Accounts.class);
            assertThat(advisorTypes(accounts)).containsSubsequence(DistributedLockAdvisor.class,
                    BeanFactoryTransactionAttributeSourceAdvisor.class);
            createAccount(context);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> workers = new ArrayList<>();
            try {
                for (int t = 0; t < THREADS; t++) {
                    workers.add(pool.submit(() -> {
                        for (int i = 0; i < DEPOSITS_PER_THREAD; i++) {
                            accounts.deposit(1, 1, Pause.NONE);
                        }
                        return null;
                    }));
                }
                for (Future<?> worker : workers) {
                    worker.get(50, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(balance(context)).isEqualTo(THREADS * DEPOSITS_PER_THREAD);
            assertThat(accounts.lockHeldAtCompletion()).hasSize(THREADS * DEPOSITS_PER_THREAD).containsOnly(true);
        });
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void withTheDefaultOrderTheNextCallerCannotReadBeforeTheCommit(RedisNode redis) {
        runner(redis).withUserConfiguration(AccountsConfiguration.class).run(context -> {
            createAccount(context);
            Race race = race(context.getBean(Accounts.class), Duration.ofMillis(300));
            assertThat(race.secondReadBeforeFirstCommit()).isFalse();
            assertThat(balance(context)).isEqualTo(2);
        });
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void withTheLockInsideTheTransactionAnUpdateIsLost(RedisNode redis) {
        runner(redis).withUserConfiguration(AccountsConfiguration.class, TransactionsFirstConfiguration.class)
            .withPropertyValues("distlock.aspect.order=100")
            .run(context -> {
                Accounts accounts = context.getBean(Accounts.class);
                assertThat(advisorTypes(accounts)).containsSubsequence(
                        BeanFactoryTransactionAttributeSourceAdvisor.class, DistributedLockAdvisor.class);
                createAccount(context);
                Race race = race(accounts, Duration.ofSeconds(10));
                assertThat(race.secondReadBeforeFirstCommit()).isTrue();
                assertThat(balance(context)).as("one of two deposits is lost").isEqualTo(1);
                assertThat(accounts.lockHeldAtCompletion()).containsOnly(false);
            });
    }

    /**
     * Two deposits: the first stops just before its commit and waits up to {@code secondReadLimit} for the second to
     * have read the balance.
     */
    private static Race race(Accounts accounts, Duration secondReadLimit) throws Exception {
        CountDownLatch firstCommitting = new CountDownLatch(1);
        CountDownLatch secondRead = new CountDownLatch(1);
        boolean[] readBeforeCommit = new boolean[1];
        Pause first = new Pause() {
            @Override
            public void beforeCommit() {
                firstCommitting.countDown();
                readBeforeCommit[0] = await(secondRead, secondReadLimit);
            }
        };
        Pause second = new Pause() {
            @Override
            public void afterRead() {
                secondRead.countDown();
            }
        };
        // Two threads of our own: the common pool may have a single worker, which would serialize the deposits.
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            Future<?> firstDeposit = threads.submit(() -> accounts.deposit(1, 1, first));
            assertThat(await(firstCommitting, Duration.ofSeconds(10))).as("the first deposit reaches its commit")
                .isTrue();
            Future<?> secondDeposit = threads.submit(() -> accounts.deposit(1, 1, second));
            firstDeposit.get(20, TimeUnit.SECONDS);
            secondDeposit.get(20, TimeUnit.SECONDS);
        }
        finally {
            threads.shutdownNow();
        }
        return new Race(readBeforeCommit[0]);
    }

    record Race(boolean secondReadBeforeFirstCommit) {
    }

    private static boolean await(CountDownLatch latch, Duration limit) {
        try {
            return latch.await(limit.toMillis(), TimeUnit.MILLISECONDS);
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
                    BootAutoConfigurations.TRANSACTION))
            .withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    private static List<Class<?>> advisorTypes(Object bean) {
        List<Class<?>> types = new ArrayList<>();
        for (Advisor advisor : ((Advised) bean).getAdvisors()) {
            types.add(advisor.getClass());
        }
        return types;
    }

    private static void createAccount(ApplicationContext context) {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("create table account (id bigint primary key, balance int not null)");
        jdbc.update("insert into account (id, balance) values (1, 0)");
    }

    private static int balance(ApplicationContext context) {
        return context.getBean(JdbcTemplate.class).queryForObject("select balance from account where id = 1",
                Integer.class);
    }

    /** Hooks into one deposit's transaction. */
    interface Pause {

        Pause NONE = new Pause() {
        };

        default void afterRead() {
        }

        default void beforeCommit() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AccountsConfiguration {

        @Bean
        Accounts accounts(JdbcTemplate jdbc, StringRedisTemplate redis) {
            return new Accounts(jdbc, redis);
        }
    }

    /** Transactions outermost; with {@code distlock.aspect.order=100} the lock runs inside them. */
    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionsFirstConfiguration {
    }

    static class Accounts {

        private final JdbcTemplate jdbc;

        private final StringRedisTemplate redis;

        private final Queue<Boolean> lockHeldAtCompletion = new ConcurrentLinkedQueue<>();

        Accounts(JdbcTemplate jdbc, StringRedisTemplate redis) {
            this.jdbc = jdbc;
            this.redis = redis;
        }

        /** Whether this call's lock was still held in Redis when its transaction completed, per call. */
        public List<Boolean> lockHeldAtCompletion() {
            return List.copyOf(this.lockHeldAtCompletion);
        }

        @Transactional(isolation = Isolation.READ_COMMITTED)
        @DistributedLock(key = "'account:' + #id", waitTime = "20s")
        public void deposit(long id, int amount, Pause pause) {
            Integer balance = this.jdbc.queryForObject("select balance from account where id = ?", Integer.class, id);
            pause.afterRead();
            Thread.yield(); // widen the race window
            this.jdbc.update("update account set balance = ? where id = ?", balance + amount, id);
            String lockHash = LockContexts.lockHash("account:" + id);
            String owner = CurrentLock.required().ownerToken();
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    pause.beforeCommit();
                }

                @Override
                public void afterCompletion(int status) {
                    StringRedisTemplate redis = Accounts.this.redis;
                    Object holder = redis.opsForHash().get(lockHash, "owner");
                    Accounts.this.lockHeldAtCompletion.add(owner.equals(holder));
                }
            });
        }
    }
}
