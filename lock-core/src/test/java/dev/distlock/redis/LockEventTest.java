package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockInterruptedException;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The typed events of a Redis lock service: one outcome per acquisition attempt, blocking or not, reported before the
 * caller sees the handle; hand-offs reported as such; and a listener that throws on every event breaks nothing.
 */
@RedisTest
class LockEventTest {

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void everyAcquisitionBlockingOrNotReportsItsStartAndOneOutcomeUnderOneAttemptNumber() throws Exception {
        Recorder events = new Recorder();
        RedisLockService locks = this.clients.service(b -> b.listener(events));
        Recorder otherEvents = new Recorder();
        RedisLockService other = this.clients.service(b -> b.listener(otherEvents));

        LockHandle held = locks.acquire("stock:1", LockOptions.defaults().withName("Sale.buy"));
        assertThat(other.async().tryAcquire("stock:1", LockOptions.defaults()).get(10, TimeUnit.SECONDS)).isEmpty();
        held.release();
        // the outcome is reported before the caller's future completes, and so before the caller can release
        LockHandle async = other.async().acquire("stock:2", LockOptions.defaults()).thenApply(handle -> {
            assertThat(otherEvents.of(LockEvent.Acquired.class)).anyMatch(event -> event.lock() == handle);
            return handle;
        }).get(10, TimeUnit.SECONDS);
        async.releaseAsync().get(10, TimeUnit.SECONDS);

        LockEvent.Acquiring start = events.of(LockEvent.Acquiring.class).get(0);
        assertThat(start)
            .isEqualTo(new LockEvent.Acquiring(start.attempt(), "stock:1", "Sale.buy", LockMode.EXCLUSIVE));
        LockEvent.Acquired acquired = events.of(LockEvent.Acquired.class).get(0);
        assertThat(acquired.attempt()).isEqualTo(start.attempt());
        assertThat(acquired.lock()).isSameAs(held);
        assertThat(events.of(LockEvent.Released.class)).singleElement()
            .satisfies(released -> assertThat(released.lock()).isSameAs(held));

        List<LockEvent.Acquiring> starts = otherEvents.of(LockEvent.Acquiring.class);
        assertThat(starts).extracting(LockEvent.Acquiring::key).containsExactly("stock:1", "stock:2");
        LockEvent.NotAcquired refused = otherEvents.of(LockEvent.NotAcquired.class).get(0);
        assertThat(refused.attempt()).isEqualTo(starts.get(0).attempt());
        assertThat(refused.name()).isEqualTo("stock");
        assertThat(otherEvents.of(LockEvent.Acquired.class)).singleElement()
            .satisfies(event -> assertThat(event.attempt()).isEqualTo(starts.get(1).attempt()));
        Await.until(Duration.ofSeconds(10), () -> !otherEvents.of(LockEvent.Released.class).isEmpty(),
                "the non-blocking release is reported");
        assertThat(starts.get(0).attempt()).isNotEqualTo(starts.get(1).attempt());
    }

    @Test
    void aCancelledNonBlockingAcquisitionEndsAsAFailedAttempt() throws Exception {
        Recorder events = new Recorder();
        RedisLockService locks = this.clients.service(b -> b.listener(events));
        LockHandle held = this.clients.service().acquire("stock:3");
        CompletableFuture<LockHandle> waiting = locks.async()
            .acquire("stock:3", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
        Await.until(Duration.ofSeconds(10), () -> !events.of(LockEvent.Acquiring.class).isEmpty(), "it starts");
        waiting.cancel(false);
        Await.until(Duration.ofSeconds(10), () -> !events.of(LockEvent.AcquireFailed.class).isEmpty(),
                "the withdrawn attempt is reported");
        LockEvent.AcquireFailed failed = events.of(LockEvent.AcquireFailed.class).get(0);
        assertThat(failed.attempt()).isEqualTo(events.of(LockEvent.Acquiring.class).get(0).attempt());
        assertThat(failed.reason()).isInstanceOf(LockInterruptedException.class);
        held.release();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHandOffIsReportedFromTheReleasingHolderToTheWaiterWhoseAcquisitionFollows() throws Exception {
        Recorder events = new Recorder();
        RedisLockService locks = this.clients.service(b -> b.listener(events));
        int handOffs = hammer(locks, Duration.ofSeconds(30), () -> events.of(LockEvent.HandedOff.class).size());

        assertThat(handOffs).as("hand-offs among four threads of one service").isPositive();
        List<LockEvent.Acquired> acquired = events.of(LockEvent.Acquired.class);
        List<LockEvent.Released> released = events.of(LockEvent.Released.class);
        for (LockEvent.HandedOff handOff : events.of(LockEvent.HandedOff.class)) {
            assertThat(handOff.to().fencingToken()).isGreaterThan(handOff.from().fencingToken());
            assertThat(acquired).anyMatch(event -> event.lock() == handOff.to());
            assertThat(released).anyMatch(event -> event.lock() == handOff.from());
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aListenerThatThrowsOnEveryEventBreaksNoLockOperation() throws Exception {
        AtomicInteger thrown = new AtomicInteger();
        LockEventListener broken = event -> {
            thrown.incrementAndGet();
            throw new IllegalStateException("a broken listener");
        };
        RedisLockService locks = this.clients.service(b -> b.listener(broken).watchdogLease(Duration.ofMillis(300)));
        LockHandle held = locks.acquire("stock:4");
        assertThat(this.clients.service().tryAcquire("stock:4")).isEmpty();
        long renewedAfter = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(700);
        Await.until(Duration.ofSeconds(10), () -> System.nanoTime() - renewedAfter > 0, "two leases pass");
        assertThat(held.isHeld()).as("renewed although the listener throws").isTrue();
        held.release();
        Optional<LockHandle> again = locks.async()
            .tryAcquire("stock:4", LockOptions.defaults())
            .get(10, TimeUnit.SECONDS);
        assertThat(again).isPresent();
        again.get().releaseAsync().get(10, TimeUnit.SECONDS);
        assertThat(hammer(locks, Duration.ofSeconds(5), () -> 0)).isZero();
        assertThat(thrown.get()).isGreaterThan(10);
    }

    /**
     * Four threads of one service take and release one key, 40 times each, until {@code enough} is positive or the
     * time is up; returns {@code enough}'s last value.
     */
    private static int hammer(RedisLockService locks, Duration limit, java.util.function.IntSupplier enough)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch start = new CountDownLatch(1);
        long deadline = System.nanoTime() + limit.toNanos();
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < 4; t++) {
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 40 && enough.getAsInt() == 0 && System.nanoTime() - deadline < 0; i++) {
                        try (LockHandle lock = locks.acquire("hot", LockOptions.defaults()
                            .withWaitTime(Duration.ofSeconds(20)))) {
                            Thread.onSpinWait();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get(limit.toSeconds() + 20, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        return enough.getAsInt();
    }

    private static final class Recorder implements LockEventListener {

        private final List<LockEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(LockEvent event) {
            this.events.add(event);
        }

        <E extends LockEvent> List<E> of(Class<E> kind) {
            return this.events.stream().filter(kind::isInstance).map(kind::cast).toList();
        }
    }
}
