package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.distlock.bench.clients.SemaphoreClient;
import dev.distlock.bench.harness.Gate;
import dev.distlock.bench.harness.LoadResult;
import dev.distlock.bench.harness.ThreadResult;
import dev.distlock.bench.harness.WorkerPool;

/**
 * Scenario 11's load: the pool's threads spread over {@code semaphores} semaphores (thread i on semaphore
 * i mod semaphores), each taking one permit, holding it for {@code hold} (nothing for zero) and releasing it, in a
 * loop bounded by the iteration's length and a cycle count. Per semaphore a counter of this JVM's holders (raised
 * right after an acquire returns, lowered right before the release) marks a violation whenever it passes the limit.
 */
final class SemaphoreLoad {

    /** Cycles one thread runs at most in one iteration, whatever its length. */
    static final long MAX_CYCLES_PER_THREAD = 10_000_000;

    private static final int MAX_ERRORS_PER_THREAD = 1_000;

    private final List<String> keys;

    private final Duration hold;

    private final AtomicInteger mostHolders = new AtomicInteger();

    SemaphoreLoad(String prefix, int semaphores, Duration hold) {
        this.keys = IntStream.range(0, semaphores).mapToObj(i -> prefix + i).toList();
        this.hold = hold;
    }

    /** The semaphores' keys, to {@link SemaphoreClient#prepare} before the load. */
    List<String> keys() {
        return this.keys;
    }

    /** The most holders any one semaphore had at once, as this JVM counted them, over every run so far. */
    int mostHolders() {
        return this.mostHolders.get();
    }

    LoadResult run(SemaphoreClient client, WorkerPool pool, Duration length, Duration timeout) throws Exception {
        Gate gate = new Gate(pool.size(), length.toNanos());
        Holders[] holders = new Holders[this.keys.size()];
        for (int i = 0; i < holders.length; i++) {
            holders[i] = new Holders(this.mostHolders);
        }
        List<ThreadResult> results = pool.runOnAll(index -> {
            int semaphore = index % holders.length;
            return loop(client, this.keys.get(semaphore), holders[semaphore], gate);
        }, timeout);
        return LoadResult.merge(results, gate.start());
    }

    private ThreadResult loop(SemaphoreClient client, String key, Holders holders, Gate gate)
            throws InterruptedException {
        ThreadResult result = new ThreadResult();
        long deadline = gate.await();
        for (long cycle = 0; cycle < MAX_CYCLES_PER_THREAD && System.nanoTime() - deadline < 0
                && !Thread.currentThread().isInterrupted(); cycle++) {
            long start = System.nanoTime();
            try {
                SemaphoreClient.Permit permit = client.acquire(key);
                holders.acquired(result);
                try {
                    if (!this.hold.isZero()) {
                        TimeUnit.NANOSECONDS.sleep(this.hold.toNanos());
                    }
                }
                finally {
                    holders.releasing();
                    permit.release();
                }
                result.cycle(System.nanoTime() - start);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            catch (Exception ex) {
                result.error(ex);
                if (result.errors() > MAX_ERRORS_PER_THREAD) {
                    break;
                }
            }
        }
        result.finished();
        return result;
    }

    /** This JVM's holders of one semaphore, and the most any semaphore had ({@code most}, shared). */
    static final class Holders {

        private final AtomicInteger count = new AtomicInteger();

        private final AtomicInteger most;

        Holders(AtomicInteger most) {
            this.most = most;
        }

        /** Right after an acquire returned: a violation in {@code result} when the count passes the limit. */
        void acquired(ThreadResult result) {
            int now = this.count.incrementAndGet();
            this.most.accumulateAndGet(now, Math::max);
            if (now > SemaphoreClient.LIMIT) {
                result.violation();
            }
        }

        /** Right before the release. */
        void releasing() {
            this.count.decrementAndGet();
        }
    }
}
