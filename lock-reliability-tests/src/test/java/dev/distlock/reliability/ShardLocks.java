package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisLockService;

/**
 * Locks on one shard of a cluster and the threads that wait for them: every critical section is recorded (for
 * {@link HistoryChecker}), and every grant to a waiter with how long after the lock's latest release it came. A waiter
 * that gets {@link LockUnavailableException} (Redis did not answer, e.g. a master that died) tries again, as a caller
 * would, and that is counted.
 */
final class ShardLocks implements AutoCloseable {

    /**
     * One waiter's grant: how long after the lock's latest release, how many of its calls failed with
     * {@link LockUnavailableException}, and whether one failed after that release (an attempt sent to a dead master
     * fails only at the command timeout, and holds up the next attempt until then).
     */
    record Grant(String waiter, String key, Duration sinceRelease, int unavailable, boolean failedAfterRelease) {
    }

    private static final int MOST_RETRIES = 100;

    private final Map<String, List<Section>> sections = new ConcurrentHashMap<>();

    private final Map<String, AtomicLong> lastRelease = new ConcurrentHashMap<>();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final List<Future<Grant>> waiters = new ArrayList<>();

    /** Takes {@code key} in {@code service} on the calling thread and records the section's start. */
    Held hold(RedisLockService service, String client, String key, LockOptions options) {
        LockHandle lock = service.acquire(key, options);
        return new Held(client, lock, System.nanoTime());
    }

    /** A lock this test holds: {@link #release()} records the section and when the lock was freed. */
    final class Held {

        private final String client;

        final LockHandle lock;

        private final long startNanos;

        private Held(String client, LockHandle lock, long startNanos) {
            this.client = client;
            this.lock = lock;
            this.startNanos = startNanos;
        }

        void release() {
            end(this.client, this.lock, this.startNanos);
        }
    }

    /** Starts a thread that waits in {@code service} for {@code key}, takes it, and releases it at once. */
    void startWaiter(RedisLockService service, String waiter, String key, Duration waitTime) {
        this.waiters.add(this.threads.submit(() -> {
            int unavailable = 0;
            long failedAt = 0;
            while (true) {
                LockHandle lock;
                try {
                    lock = service.acquire(key, LockOptions.defaults().withWaitTime(waitTime));
                }
                catch (LockUnavailableException ex) {
                    failedAt = System.nanoTime();
                    if (++unavailable > MOST_RETRIES) {
                        throw ex;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // a caller's pause before a retry
                    continue;
                }
                long granted = System.nanoTime();
                long released = lastRelease(key).get();
                end(waiter, lock, granted);
                return new Grant(waiter, key, Duration.ofNanos(granted - released), unavailable,
                        unavailable > 0 && failedAt - released > 0);
            }
        }));
    }

    /** Every waiter's grant, in the order they were started; fails if one does not come within {@code limit}. */
    List<Grant> grants(Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        List<Grant> grants = new ArrayList<>();
        for (Future<Grant> waiter : this.waiters) {
            grants.add(waiter.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        }
        return grants;
    }

    /** Overlaps of sections whose holders both believed they held the lock, per key. */
    List<String> overlaps() {
        List<String> overlaps = new ArrayList<>();
        this.sections.forEach((key, history) -> overlaps.addAll(HistoryChecker.overlaps(List.copyOf(history))));
        return overlaps;
    }

    private void end(String client, LockHandle lock, long startNanos) {
        boolean valid = lock.isHeld();
        this.sections.computeIfAbsent(lock.key(), key -> Collections.synchronizedList(new ArrayList<>()))
            .add(new Section(client, lock.ownerToken(), lock.fencingToken(), startNanos, System.nanoTime(), valid));
        lastRelease(lock.key()).set(System.nanoTime());
        lock.release();
    }

    private AtomicLong lastRelease(String key) {
        return this.lastRelease.computeIfAbsent(key, k -> new AtomicLong());
    }

    @Override
    public void close() {
        this.threads.shutdownNow();
    }
}
