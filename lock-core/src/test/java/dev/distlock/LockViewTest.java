package dev.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

import dev.distlock.redis.RedisLockService;

/** The {@link java.util.concurrent.locks.Lock} view keeps the JDK's contract on a real Redis. */
@RedisTest
class LockViewTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private final List<AutoCloseable> resources = new ArrayList<>();

    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    private RedisNode redis;

    private RedisLockService locks;

    /** A second process's service, to see the lock from outside. */
    private RedisLockService elsewhere;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.locks = service(redis);
        this.elsewhere = service(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.otherThread.shutdownNow();
        for (int i = this.resources.size() - 1; i >= 0; i--) {
            this.resources.get(i).close();
        }
    }

    @Test
    void isReentrantPerThreadAndFreedByTheLastUnlock() {
        LockView lock = LockView.of(this.locks, "stock:1", LockOptions.defaults());
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        long token = lock.fencingToken();

        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.fencingToken()).isEqualTo(token);
        assertThat(this.elsewhere.tryAcquire("stock:1")).isEmpty();

        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThat(this.elsewhere.tryAcquire("stock:1").orElseThrow().fencingToken()).isGreaterThan(token);
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItThrowsAndLeavesTheLockHeld() throws Exception {
        LockView lock = LockView.of(this.locks, "stock:2", LockOptions.defaults());
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

        lock.lock();
        Future<?> foreignUnlock = this.otherThread.submit(lock::unlock);
        assertThatThrownBy(foreignUnlock::get).hasCauseInstanceOf(IllegalMonitorStateException.class);
        assertThat(this.otherThread.submit(() -> lock.tryLock()).get()).isFalse();
        assertThat(this.elsewhere.tryAcquire("stock:2")).isEmpty();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }

    @Test
    void lockWaitsForAnotherProcessToRelease() throws Exception {
        LockHandle holder = this.elsewhere.acquire("stock:3");
        LockView lock = LockView.of(this.locks, "stock:3", LockOptions.defaults());
        assertThat(lock.tryLock()).isFalse();
        assertThat(lock.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();

        CountDownLatch started = new CountDownLatch(1);
        Future<Long> waiter = this.otherThread.submit(() -> {
            started.countDown();
            lock.lock();
            try {
                return lock.fencingToken();
            }
            finally {
                lock.unlock();
            }
        });
        started.await();
        holder.release();
        assertThat(waiter.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isGreaterThan(holder.fencingToken());
    }

    @Test
    void timedTryLockGetsTheLockWhenItIsReleasedDuringTheWait() throws Exception {
        LockHandle holder = this.elsewhere.acquire("stock:4");
        LockView lock = LockView.of(this.locks, "stock:4", LockOptions.defaults());
        Future<Boolean> waiter = this.otherThread.submit(() -> {
            boolean locked = lock.tryLock(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            if (locked) {
                lock.unlock();
            }
            return locked;
        });
        holder.release();
        assertThat(waiter.get(DEADLINE.toSeconds() + 5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void lockInterruptiblyStopsWaitingOnInterruptAndLeavesNothingHeld() throws Exception {
        LockHandle holder = this.elsewhere.acquire("stock:5");
        LockView lock = LockView.of(this.locks, "stock:5", LockOptions.defaults());
        Thread[] waitingThread = new Thread[1];
        CountDownLatch started = new CountDownLatch(1);
        Future<Boolean> waiter = this.otherThread.submit(() -> {
            waitingThread[0] = Thread.currentThread();
            started.countDown();
            try {
                lock.lockInterruptibly();
                return false;
            }
            catch (InterruptedException ex) {
                return !Thread.currentThread().isInterrupted(); // the JDK contract: the flag is cleared
            }
        });
        started.await();
        waitingThread[0].interrupt();
        assertThat(waiter.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(lock.isLocked()).isFalse();

        Thread.currentThread().interrupt();
        assertThatThrownBy(() -> lock.tryLock(1, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Thread.interrupted()).isFalse();
        holder.release();
        assertThat(this.elsewhere.tryAcquire("stock:5")).isPresent();
    }

    @Test
    void lockIgnoresInterruptsAndKeepsTheFlag() throws Exception {
        LockHandle holder = this.elsewhere.acquire("stock:6");
        LockView lock = LockView.of(this.locks, "stock:6", LockOptions.defaults());
        Thread[] waitingThread = new Thread[1];
        CountDownLatch started = new CountDownLatch(1);
        Future<Boolean> waiter = this.otherThread.submit(() -> {
            waitingThread[0] = Thread.currentThread();
            started.countDown();
            lock.lock();
            boolean interrupted = Thread.interrupted();
            lock.unlock();
            return interrupted;
        });
        started.await();
        waitingThread[0].interrupt();
        // a lock() that gave up on the interrupt would fail the future here rather than return the flag
        holder.release();
        assertThat(waiter.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aLostLeaseIsReportedByUnlockAndTheNextLockTakesItAnew() {
        LockView lock = LockView.of(this.locks, "stock:7", LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)));
        lock.lock();
        long first = lock.fencingToken();
        await(() -> this.elsewhere.tryAcquire("stock:7").map(other -> {
            other.release();
            return true;
        }).orElse(false), "the lease runs out");

        assertThatThrownBy(lock::unlock).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);

        lock.lock();
        lock.lock(); // a re-entry of the expired lease would be a new grant
        assertThat(lock.fencingToken()).isGreaterThan(first);
        lock.unlock();
        lock.unlock();
        assertThat(this.elsewhere.tryAcquire("stock:7")).isPresent();
    }

    @Test
    void aLeaseThatRanOutWhileHeldIsForgottenByTheNextLock() {
        LockView lock = LockView.of(this.locks, "stock:8", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(1)));
        lock.lock();
        long first = lock.fencingToken();
        await(() -> !lock.isHeldByCurrentThread(), "the lease runs out here");
        await(() -> "0".equals(this.redis.call("EXISTS", "distlock:{stock:8}:lock")),
                "the lease runs out in Redis");

        lock.lock();
        assertThat(lock.fencingToken()).isGreaterThan(first);
        lock.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(this.elsewhere.tryAcquire("stock:8")).isPresent();
    }

    @Test
    void hasNoConditionsAndRefusesAnOwner() {
        LockView lock = LockView.of(this.locks, "stock:9", LockOptions.defaults());
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> LockView.of(this.locks, "stock:9", LockOptions.defaults().withOwner("me")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("owner");
        assertThatThrownBy(() -> LockView.of(this.locks, "bad{key}", LockOptions.defaults()).tryLock())
            .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void holdsAcrossThreadsAreMutuallyExclusive() throws ExecutionException, InterruptedException {
        LockView lock = LockView.of(this.locks, "stock:10", LockOptions.defaults());
        lock.lock();
        assertThat(this.otherThread.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get()).isFalse();
        lock.unlock();
        assertThat(this.otherThread.submit(() -> {
            boolean locked = lock.tryLock();
            lock.unlock();
            return locked;
        }).get()).isTrue();
    }

    private static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Not true within " + DEADLINE + ": " + what);
            }
            try {
                Thread.sleep(5);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for: " + what, ex);
            }
        }
    }

    private RedisLockService service(RedisNode redis) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", redis.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        this.resources.add(factory::destroy);
        RedisLockService service = RedisLockService.builder(new StringRedisTemplate(factory))
            .restartGrace(Duration.ZERO) // a fresh test server
            .build();
        this.resources.add(service);
        return service;
    }
}
