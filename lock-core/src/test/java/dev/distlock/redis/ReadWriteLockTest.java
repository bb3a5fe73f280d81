package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Read/write locks: shared readers, exclusive writers, no writer starvation, and readers that expire on their own. */
@RedisTest
class ReadWriteLockTest {

    private static final LockOptions READ = LockOptions.defaults().withMode(LockMode.READ);

    private static final LockOptions WRITE = LockOptions.defaults().withMode(LockMode.WRITE);

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void readersHoldTogetherAcrossClientsAndKeepWritersOut() throws Exception {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        LockHandle one = first.acquire("doc", READ);
        LockHandle two = second.acquire("doc", READ);
        LockHandle three = CompletableFuture.supplyAsync(() -> first.tryAcquire("doc", READ))
            .get(10, TimeUnit.SECONDS)
            .orElseThrow();

        assertThat(List.of(one, two, three)).allMatch(LockHandle::isHeld);
        assertThat(this.redis.call("ZCARD", "distlock:{doc}:rw:readers")).isEqualTo("3");
        assertThat(second.tryAcquire("doc", WRITE.withOwner("writer"))).isEmpty();
        assertThatThrownBy(() -> first.acquire("doc", WRITE.withWaitTime(Duration.ofMillis(200)).withOwner("writer")))
            .isInstanceOf(LockTimeoutException.class);
        assertThat(this.redis.call("EXISTS", "distlock:{doc}:rw:intent")).as("the writer that gave up withdrew")
            .isEqualTo("0");
        LockHandle again = first.acquire("doc", READ); // re-entry by the same thread
        assertThat(again.fencingToken()).isEqualTo(one.fencingToken());

        for (LockHandle reader : List.of(again, one, two, three)) {
            reader.release();
        }
        assertThat(this.redis.call("ZCARD", "distlock:{doc}:rw:readers")).isEqualTo("0");
        try (LockHandle writer = second.tryAcquire("doc", WRITE).orElseThrow()) {
            assertThat(first.tryAcquire("doc", READ)).isEmpty();
            assertThat(first.tryAcquire("doc", WRITE)).isEmpty();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void writersExcludeEachOtherAndEveryReader() throws Exception {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        int writers = 4;
        int writesEach = 60;
        AtomicInteger writersInside = new AtomicInteger();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger reads = new AtomicInteger();
        int[] counter = { 0 };
        AtomicBoolean writing = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(writers + 4);
        List<Future<?>> tasks = new ArrayList<>();
        try {
            for (int w = 0; w < writers; w++) {
                RedisLockService locks = (w % 2 == 0) ? first : second;
                tasks.add(pool.submit(() -> {
                    for (int i = 0; i < writesEach; i++) {
                        try (LockHandle lock = locks.acquire("ledger", WRITE.withWaitTime(Duration.ofSeconds(30)))) {
                            if (writersInside.incrementAndGet() != 1) {
                                violations.incrementAndGet();
                            }
                            int value = counter[0]; // a non-atomic read-modify-write, safe only under the lock
                            Thread.yield();
                            counter[0] = value + 1;
                            writersInside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int r = 0; r < 4; r++) {
                RedisLockService locks = (r % 2 == 0) ? first : second;
                tasks.add(pool.submit(() -> {
                    while (writing.get() && System.nanoTime() < deadline) {
                        try (LockHandle lock = locks.acquire("ledger", READ.withWaitTime(Duration.ofSeconds(30)))) {
                            if (writersInside.get() != 0) {
                                violations.incrementAndGet();
                            }
                            Thread.yield();
                            if (writersInside.get() != 0) {
                                violations.incrementAndGet();
                            }
                            reads.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : tasks.subList(0, writers)) {
                writer.get(70, TimeUnit.SECONDS);
            }
            writing.set(false);
            for (Future<?> reader : tasks.subList(writers, tasks.size())) {
                reader.get(40, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        synchronized (counter) {
            assertThat(counter[0]).isEqualTo(writers * writesEach);
        }
        assertThat(violations).hasValue(0);
        assertThat(reads.get()).isPositive();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aWaitingWriterIsNotStarvedByAStreamOfReaders() throws Exception {
        RedisLockService first = this.clients.service(b -> b.waiterLease(Duration.ofSeconds(1)));
        RedisLockService second = this.clients.service(b -> b.waiterLease(Duration.ofSeconds(1)));
        int readerThreads = 6;
        long loadEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger readsAfterWriter = new AtomicInteger();
        AtomicBoolean writerDone = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(readerThreads);
        List<Future<?>> readers = new ArrayList<>();
        try {
            for (int r = 0; r < readerThreads; r++) {
                RedisLockService locks = (r % 2 == 0) ? first : second;
                readers.add(pool.submit(() -> {
                    // overlapping reads of random length, re-acquired at once: the readers almost never all leave
                    // together, so without the writer's intent a writer would rarely find the lock free
                    for (int i = 0; i < 5_000 && !stop.get() && System.nanoTime() < loadEnd; i++) {
                        try (LockHandle lock = locks.acquire("catalog", READ.withWaitTime(Duration.ofSeconds(15)))) {
                            reads.incrementAndGet();
                            if (writerDone.get()) {
                                readsAfterWriter.incrementAndGet();
                            }
                            Thread.sleep(ThreadLocalRandom.current().nextInt(20, 60));
                        }
                    }
                    return null;
                }));
            }
            Await.until(Duration.ofSeconds(10), () -> reads.get() >= 30, "the reader load is running");
            try (LockHandle writer = first.acquire("catalog", WRITE.withWaitTime(Duration.ofSeconds(15)))) {
                assertThat(this.redis.call("ZCARD", "distlock:{catalog}:rw:readers")).isEqualTo("0");
                assertThat(System.nanoTime()).as("the writer got in while the load still ran").isLessThan(loadEnd);
                writerDone.set(true);
            }
            Await.until(Duration.ofSeconds(10), () -> readsAfterWriter.get() > 0, "readers go on after the writer");
            stop.set(true);
            for (Future<?> reader : readers) {
                reader.get(30, TimeUnit.SECONDS);
            }
        }
        finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    @Test
    void theWriteHolderMayReadAndKeepsReadingAfterReleasingTheWrite() {
        RedisLockService locks = this.clients.service();
        RedisLockService other = this.clients.service();
        LockHandle write = locks.acquire("page", WRITE);
        LockHandle read = locks.tryAcquire("page", READ).orElseThrow();
        assertThat(read.ownerToken()).isEqualTo(write.ownerToken());
        assertThat(read.fencingToken()).isGreaterThan(write.fencingToken());
        assertThat(other.tryAcquire("page", READ)).as("others still may not read").isEmpty();

        write.release(); // a downgrade: the owner reads on, and other readers may join
        assertThat(read.isHeld()).isTrue();
        assertThat(other.tryAcquire("page", WRITE)).isEmpty();
        LockHandle otherRead = other.tryAcquire("page", READ).orElseThrow();
        otherRead.release();
        // but a reader may not take the write lock (see RetriedCallTest.aReaderCannotTakeTheWriteLock)
        assertThatThrownBy(() -> locks.tryAcquire("page", WRITE)).isInstanceOf(IllegalStateException.class);
        read.release();
        assertThat(other.tryAcquire("page", WRITE)).isPresent();
    }

    @Test
    void aCrashedReaderExpiresOnItsOwnWhileALiveReaderStaysHeld() throws Exception {
        RedisLockService crashed = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        // long enough that a loaded 2-core CI machine renews the live reader in time
        RedisLockService live = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(1500)));
        RedisLockService writers = this.clients.service();
        LockHandle abandoned = crashed.acquire("report", READ);
        LockHandle reader = live.acquire("report", READ);
        crashed.close(); // no release, no renewal

        Await.until(Duration.ofSeconds(10),
                () -> this.redis.call("EXISTS", "distlock:{report}:rw:reader:" + abandoned.ownerToken()).equals("0"),
                "the crashed reader's lease runs out");
        double leaseEndAtExpiry = score("report", reader);
        // the live reader's lease goes on being renewed after the other's expiry
        Await.until(Duration.ofSeconds(5), () -> score("report", reader) > leaseEndAtExpiry,
                "the live reader is renewed");
        assertThat(reader.isHeld()).isTrue();
        assertThat(writers.tryAcquire("report", WRITE)).as("nobody writes while it reads").isEmpty();
        assertThat(this.redis.call("ZSCORE", "distlock:{report}:rw:readers", abandoned.ownerToken()))
            .as("the crashed reader was dropped")
            .isNull();
        reader.release();
        // the crashed reader holds nothing back: a writer gets in at once
        assertThat(writers.tryAcquire("report", WRITE)).isPresent();
    }

    private double score(String key, LockHandle reader) {
        return Double.parseDouble(this.redis.call("ZSCORE", "distlock:{" + key + "}:rw:readers", reader.ownerToken()));
    }

    @Test
    void aWriterReleaseWakesEveryWaitingReader() throws Exception {
        RedisLockService first = this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(30)));
        RedisLockService second = this.clients.service();
        LockHandle writer = first.acquire("feed", WRITE);
        int readers = 6;
        CountDownLatch allIn = new CountDownLatch(readers);
        AtomicLong lastIn = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            RedisLockService locks = (r % 2 == 0) ? first : second;
            CompletableFuture<Void> finished = new CompletableFuture<>();
            done.add(finished);
            Thread thread = new Thread(() -> {
                try (LockHandle lock = locks.acquire("feed", READ.withWaitTime(Duration.ofSeconds(20)))) {
                    lastIn.accumulateAndGet(System.nanoTime(), Math::max);
                    allIn.countDown();
                    allIn.await(15, TimeUnit.SECONDS); // every reader holds at the same time
                    finished.complete(null);
                }
                catch (Throwable ex) {
                    finished.completeExceptionally(ex);
                }
            });
            threads.add(thread);
            thread.start();
        }
        Await.until(Duration.ofSeconds(10),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{feed}:rw:released").endsWith("\n2")
                        && threads.stream().allMatch(thread -> thread.getState() == Thread.State.TIMED_WAITING),
                "every reader waits");
        long releasedAt = System.nanoTime();
        writer.release();
        assertThat(allIn.await(15, TimeUnit.SECONDS)).isTrue();
        // A reader missed by the wake-up would re-check only after 5 s (the writer's lease had 30 s to run).
        assertThat(Duration.ofNanos(lastIn.get() - releasedAt)).isLessThan(Duration.ofSeconds(4));
        CompletableFuture.allOf(done.toArray(new CompletableFuture[0])).get(20, TimeUnit.SECONDS);
    }

    @Test
    void aDeadWritersIntentHoldsReadersBackOnlyForTheWaiterLease() throws Exception {
        RedisLockService readers = this.clients.service();
        RedisLockService dying = this.clients.service(b -> b.waiterLease(Duration.ofSeconds(1)));
        LockHandle reader = readers.acquire("wiki", READ);
        CompletableFuture<Optional<LockHandle>> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return Optional.of(dying.acquire("wiki", WRITE.withWaitTime(Duration.ofSeconds(30))));
            }
            catch (IllegalStateException closed) {
                return Optional.empty();
            }
        });
        Await.until(Duration.ofSeconds(10), () -> this.redis.call("EXISTS", "distlock:{wiki}:rw:intent").equals("1"),
                "the writer waits and records its intent");
        assertThat(readers.tryAcquire("wiki", READ.withOwner(new Object()))).as("new readers are held back")
            .isEmpty();
        dying.close(); // the writer's process is gone: it neither gets the lock nor withdraws
        assertThat(writer.get(10, TimeUnit.SECONDS)).isEmpty();
        LockHandle late = readers.acquire("wiki", READ.withOwner(new Object()).withWaitTime(Duration.ofSeconds(10)));
        assertThat(this.redis.call("EXISTS", "distlock:{wiki}:rw:intent")).isEqualTo("0");
        late.release();
        reader.release();
    }

    @Test
    void lostReadAndWriteLeasesAreReported() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        LockHandle read = locks.acquire("r", READ);
        LockHandle write = locks.acquire("w", WRITE);
        CountDownLatch lost = new CountDownLatch(2);
        read.onLeaseLost(reason -> lost.countDown());
        write.onLeaseLost(reason -> lost.countDown());

        this.redis.call("DEL", "distlock:{r}:rw:readers", "distlock:{r}:rw:reader:" + read.ownerToken());
        this.redis.call("DEL", "distlock:{w}:rw:write");

        assertThat(lost.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(read.isHeld()).isFalse();
        assertThat(write.isHeld()).isFalse();
        assertThat(locks.renewingCount()).isZero();
        assertThatThrownBy(read::release).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(write::release).isInstanceOf(LeaseLostException.class);
    }

    @Test
    void fencingTokensIncreaseAcrossReadAndWriteGrants() {
        RedisLockService first = this.clients.service();
        RedisLockService second = this.clients.service();
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            RedisLockService locks = (i % 2 == 0) ? first : second;
            try (LockHandle lock = locks.acquire("fenced", (i % 3 == 0) ? WRITE : READ)) {
                tokens.add(lock.fencingToken());
            }
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
        this.redis.call("FLUSHALL"); // as after a restart without persistence
        try (LockHandle lock = first.acquire("fenced", READ)) {
            assertThat(lock.fencingToken()).isGreaterThan(tokens.get(tokens.size() - 1));
        }
    }
}
