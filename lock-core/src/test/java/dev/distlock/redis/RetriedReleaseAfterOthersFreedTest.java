package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A release whose first try freed the lock, with its reply delayed past the command timeout, retried after other
 * owners freed the lock too: a later grant lapsed with its short lease (taking the lock's key, and the run of grants
 * in it, along), and the next owners took the lock and released it, each freeing release leaving its own freed mark
 * (see freed-mark.lua). The retry's evidence is its own entry in the mark, which the later freeing releases must not
 * have erased: the release happened with its lease far from over, and must report success (the explorer's soak of
 * 2026-11-28 found it as a NotLockOwnerException).
 * <p>
 * Timeline, with a command timeout of 1 s and replies of the first 500 ms held back 1.6 s: the first try runs at once
 * and times out at 1 s; the retry goes out at 1.05 s, its reply queued behind the first one's (1.6 s). Meanwhile, on
 * a connection without faults: an owner takes the lock with a 100 ms lease and lets it lapse; {@code freeing} more
 * owners take it and release it; with {@code taken}, one last owner takes it and holds it through the retry.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RetriedReleaseAfterOthersFreedTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private static final Duration LAPSING_LEASE = Duration.ofMillis(100);

    private RedisClients clients;

    private FaultProxy proxy;

    private final List<LockEvent> reported = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
        this.proxy = FaultProxy.start(redis.port());
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
        this.proxy.close();
    }

    @ParameterizedTest(name = "{0}, {1} freeing releases after the lapse, taken at the retry {2}, async {3}")
    @CsvSource({ "EXCLUSIVE, 1, false, false", "EXCLUSIVE, 1, true, false", "EXCLUSIVE, 1, false, true",
            "EXCLUSIVE, 3, true, true", "WRITE, 1, true, false", "WRITE, 3, false, true", "FAIR, 1, true, false",
            "FAIR, 3, false, true" })
    void aRetriedReleaseIsNotReportedLostAfterOtherOwnersFreedTheLock(LockMode mode, int freeing, boolean taken,
            boolean async) throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.proxy.port(), COMMAND_TIMEOUT),
                b -> b.listener((LockEvent event) -> this.reported.add(event)));
        RedisLockService others = this.clients.service();
        LockOptions options = LockOptions.defaults().withMode(mode);
        locks.acquire("warm-up", options).release(); // Redis knows the scripts: no NOSCRIPT reply to delay
        others.acquire("warm-up", options).release();
        LockHandle lock = locks.acquire("order:9", options.withLeaseTime(Duration.ofSeconds(30)));

        this.proxy.delayReplies(Duration.ofMillis(500), Duration.ofMillis(1600));
        long started = System.nanoTime();
        CompletableFuture<Void> release = async ? lock.releaseAsync().toCompletableFuture()
                : CompletableFuture.runAsync(lock::release);
        // each its own owner: a thread's next call would re-enter its last hold
        LockOptions lapsing = options.withLeaseTime(LAPSING_LEASE);
        Await.until(Duration.ofMillis(900), () -> others.tryAcquire("order:9", lapsing.withOwner(new Object()))
            .isPresent(), "another owner took the lock the first try freed");
        for (int i = 0; i < freeing; i++) {
            List<LockHandle> next = new CopyOnWriteArrayList<>();
            Await.until(Duration.ofMillis(900), () -> others.tryAcquire("order:9", options.withOwner(new Object()))
                .map(next::add)
                .isPresent(), "an owner took the lock after the lapse");
            next.get(0).release();
        }
        LockHandle holder = taken ? others.tryAcquire("order:9", options.withOwner(new Object())).orElseThrow()
                : null;
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("all before the retry")
            .isLessThan(COMMAND_TIMEOUT);
        Optional<Throwable> failure = outcome(release);

        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("retried: the first try timed out")
            .isGreaterThan(COMMAND_TIMEOUT);
        assertThat(failure).as("the first try freed the lock with 29 s of lease left").isEmpty();
        assertThat(this.reported).noneMatch(LockEvent.ReleaseFailed.class::isInstance);
        assertThat(lock.isHeld()).isFalse();
        if (holder != null) {
            assertThat(holder.isHeld()).isTrue();
            holder.release();
        }
    }

    private static Optional<Throwable> outcome(CompletableFuture<Void> release) throws Exception {
        try {
            release.get(10, TimeUnit.SECONDS);
            return Optional.empty();
        }
        catch (ExecutionException ex) {
            return Optional.of(ex.getCause());
        }
    }
}
