package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Three services with eight threads each hammer a semaphore of five permits, while some holders pause past their lease
 * and a fourth service holding two permits is killed. The history of sections (from grant to release) is checked as
 * the lock tests' history checker does, counting holders instead of excluding them: at no instant are more than five
 * sections open whose holders still held their permit when they finished; every grant has its own fencing token.
 */
@RedisTest
class SemaphoreLimitTest {

    private static final int LIMIT = 5;

    private static final int SERVICES = 3;

    private static final int THREADS_PER_SERVICE = 8;

    private static final int ITERATIONS = 20;

    private static final long RUN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(45);

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    /** One holder's time with its permit: valid when the holder still held it at the end. */
    record Section(long startNanos, long endNanos, boolean validAtEnd, long token) {
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theLimitHoldsUnderContentionPausedHoldersAndAKilledService() throws Exception {
        LockOptions permit = LockOptions.defaults().withPermits(LIMIT).withWaitTime(Duration.ofSeconds(20));
        ConcurrentLinkedQueue<Section> history = new ConcurrentLinkedQueue<>();
        List<Long> tokens = new ArrayList<>();
        RedisLockService doomed = this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(1)));
        List<LockHandle> doomedPermits = List.of(doomed.acquire("export", permit), doomed.acquire("export", permit));
        long doomedSince = System.nanoTime();
        List<RedisLockService> services = new ArrayList<>();
        for (int s = 0; s < SERVICES; s++) {
            services.add(this.clients.service(b -> b.watchdogLease(Duration.ofSeconds(2))));
        }
        AtomicInteger finished = new AtomicInteger();
        AtomicInteger timeouts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(SERVICES * THREADS_PER_SERVICE);
        CountDownLatch start = new CountDownLatch(1);
        long deadline = System.nanoTime() + RUN_LIMIT_NANOS;
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < SERVICES * THREADS_PER_SERVICE; t++) {
                RedisLockService service = services.get(t % SERVICES);
                workers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < ITERATIONS && System.nanoTime() - deadline < 0; i++) {
                        history.add(cycle(service, permit, i, timeouts));
                        finished.incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            while (finished.get() < 100 && System.nanoTime() - deadline < 0) {
                Thread.sleep(5);
            }
            doomed.close(); // killed: its two permits stay counted until their lease ends
            long killedAt = System.nanoTime();
            for (LockHandle handle : doomedPermits) {
                history.add(new Section(doomedSince, killedAt, true, handle.fencingToken()));
            }
            for (Future<?> worker : workers) {
                worker.get(100, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        List<Section> sections = new ArrayList<>(history);
        sections.removeIf(section -> section == null);
        for (Section section : sections) {
            tokens.add(section.token());
        }
        assertThat(new HashSet<>(tokens)).as("every grant has a token of its own").hasSameSizeAs(tokens);
        assertThat(sections.size()).as("cycles run").isGreaterThan(SERVICES * THREADS_PER_SERVICE * ITERATIONS / 2);
        List<LockHandle> all = new ArrayList<>(); // no permit counted twice or left counted: all LIMIT come back
        Await.until(Duration.ofSeconds(10), () -> {
            all.forEach(LockHandle::release);
            all.clear();
            for (int i = 0; i < LIMIT; i++) {
                services.get(0).tryAcquire("export", permit.withWaitTime(Duration.ZERO)).ifPresent(all::add);
            }
            return all.size() == LIMIT;
        }, "every permit free again after the run (got " + all.size() + ")");
        assertThat(services.get(1).tryAcquire("export", permit.withWaitTime(Duration.ZERO))).as("one over the limit")
            .isEmpty();
        all.forEach(LockHandle::release);
        // Paused holders keep most permits most of the time (150 ms against a few ms of work), so how many valid
        // holders overlapped varies from run to run; that the limit is reachable is shown just above.
        assertThat(maxOpen(sections, true)).as("holders at once that held their permit to the end")
            .isBetween(2, LIMIT);
        assertThat(sections).as("some holders paused past their lease").anyMatch(section -> !section.validAtEnd());
        assertThat(maxOpen(sections, false)).as("the paused holders overlapped the permits' next holders")
            .isGreaterThan(LIMIT);
        assertThat(timeouts.get()).as("waits that ran out").isLessThan(sections.size() / 10);
    }

    /** One acquire-work-release cycle; one in six pauses past its fixed lease. Null when the wait ran out. */
    private static Section cycle(RedisLockService service, LockOptions permit, int iteration, AtomicInteger timeouts)
            throws InterruptedException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        boolean pauses = random.nextInt(6) == 0;
        LockOptions options = pauses ? permit.withLeaseTime(Duration.ofMillis(150))
                : (iteration % 2 == 0) ? permit : permit.withLeaseTime(Duration.ofSeconds(2));
        LockHandle handle;
        try {
            handle = service.acquire("export", options);
        }
        catch (LockTimeoutException ex) {
            timeouts.incrementAndGet();
            return null;
        }
        long start = System.nanoTime();
        if (pauses) {
            Thread.sleep(300); // a GC pause or a stopped process: past the lease
        }
        else {
            Thread.sleep(1 + random.nextInt(3)); // work long against a round trip, so that the holders overlap
        }
        long end = System.nanoTime();
        boolean valid = handle.isHeld();
        try {
            handle.release();
        }
        catch (LeaseLostException ex) {
            valid = false;
        }
        return new Section(start, end, valid, handle.fencingToken());
    }

    /** The most sections open at one instant (only those valid at their end, unless {@code all}). */
    private static int maxOpen(List<Section> sections, boolean validOnly) {
        List<long[]> events = new ArrayList<>();
        for (Section section : sections) {
            if (validOnly && !section.validAtEnd()) {
                continue;
            }
            events.add(new long[] { section.startNanos(), 1 });
            events.add(new long[] { section.endNanos(), -1 });
        }
        // an end before a start at the same instant: a permit handed on is not held twice
        events.sort((a, b) -> (a[0] != b[0]) ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        int open = 0;
        int most = 0;
        for (long[] event : events) {
            open += (int) event[1];
            most = Math.max(most, open);
        }
        return most;
    }
}
