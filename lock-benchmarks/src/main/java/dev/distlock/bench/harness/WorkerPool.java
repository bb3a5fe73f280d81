package dev.distlock.bench.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** A fixed set of load threads, reused across the iterations of one implementation so locks stay thread-bound. */
public final class WorkerPool implements AutoCloseable {

    private final ExecutorService executor;

    private final int size;

    public WorkerPool(int size, String name) {
        AtomicInteger count = new AtomicInteger();
        this.size = size;
        this.executor = Executors.newFixedThreadPool(size, task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    public int size() {
        return this.size;
    }

    /** A task on worker {@code index}. */
    @FunctionalInterface
    public interface Task<T> {

        T run(int index) throws Exception;
    }

    /**
     * Runs one task per worker and waits for all of them, at most {@code timeout}: past it the tasks are interrupted
     * and a {@link TimeoutException} is thrown, so no iteration can run unbounded.
     */
    public <T> List<T> runOnAll(Task<T> task, Duration timeout) throws InterruptedException, TimeoutException {
        return run(this.size, task, timeout);
    }

    /** Runs {@code count} tasks (at most the pool size run at once) and waits as {@link #runOnAll} does. */
    public <T> List<T> run(int count, Task<T> task, Duration timeout) throws InterruptedException, TimeoutException {
        return start(count, task).await(timeout);
    }

    /** Starts {@code count} tasks without waiting for them. */
    public <T> Batch<T> start(int count, Task<T> task) {
        List<Future<T>> futures = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int index = i;
            futures.add(this.executor.submit(() -> task.run(index)));
        }
        return new Batch<>(futures);
    }

    /** Tasks started together. */
    public static final class Batch<T> {

        private final List<Future<T>> futures;

        private Batch(List<Future<T>> futures) {
            this.futures = futures;
        }

        /**
         * Waits for every task, at most {@code timeout}: past it the tasks are interrupted and a
         * {@link TimeoutException} is thrown.
         */
        public List<T> await(Duration timeout) throws InterruptedException, TimeoutException {
            long deadline = System.nanoTime() + timeout.toNanos();
            List<T> results = new ArrayList<>(this.futures.size());
            try {
                for (Future<T> future : this.futures) {
                    results.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                }
            }
            catch (ExecutionException ex) {
                throw new IllegalStateException("a load thread failed", ex.getCause());
            }
            finally {
                this.futures.forEach(future -> future.cancel(true));
            }
            return results;
        }
    }

    @Override
    public void close() {
        this.executor.shutdownNow();
    }
}
