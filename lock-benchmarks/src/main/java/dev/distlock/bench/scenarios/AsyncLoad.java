package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

import dev.distlock.bench.clients.AsyncLockClient;
import dev.distlock.bench.harness.LoadResult;
import dev.distlock.bench.harness.ThreadResult;

/**
 * One iteration of non-blocking lock cycles from one thread: the calling thread starts {@code inFlight} chains, and
 * each chain, as non-blocking code does, starts its next cycle from the completion of its last release (on the
 * client's I/O thread), until the deadline. A cycle's latency runs from the acquire call to the release's completion.
 * A failed cycle is counted and its chain restarted by the calling thread; past {@link #MAX_ERRORS} failures a chain
 * stops. The calling thread waits for every chain to end, at most {@code timeout}.
 */
final class AsyncLoad {

    private static final int MAX_ERRORS = 100;

    /** Chains a thread may start inside a completion that ran inline before the stack is unwound. */
    private static final int MAX_DEPTH = 16;

    private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

    private final AsyncLockClient client;

    private final IntFunction<String> keys;

    private final HandOff handOff;

    private final BlockingQueue<Chain> restarts = new LinkedBlockingQueue<>();

    private final int inFlight;

    private final CountDownLatch ended;

    private volatile long deadline;

    private volatile boolean stopped;

    /**
     * @param keys the key of each chain, by its index
     * @param handOff the hot key's hand-off record, or null
     * @param inFlight how many chains
     */
    AsyncLoad(AsyncLockClient client, IntFunction<String> keys, HandOff handOff, int inFlight) {
        this.client = client;
        this.keys = keys;
        this.handOff = handOff;
        this.inFlight = inFlight;
        this.ended = new CountDownLatch(inFlight);
    }

    /** Runs the load once; an instance runs once. */
    LoadResult run(Duration length, Duration timeout) throws InterruptedException, TimeoutException {
        List<Chain> chains = new ArrayList<>(this.inFlight);
        for (int i = 0; i < this.inFlight; i++) {
            chains.add(new Chain(i, this.keys.apply(i)));
        }
        long start = System.nanoTime();
        this.deadline = start + length.toNanos();
        long giveUp = start + timeout.toNanos();
        chains.forEach(Chain::next);
        while (this.ended.getCount() > 0) {
            Chain restart = this.restarts.poll(10, TimeUnit.MILLISECONDS);
            if (restart != null) {
                restart.next();
            }
            else if (System.nanoTime() - giveUp > 0) {
                this.stopped = true;
                throw new TimeoutException(this.ended.getCount() + " of " + this.inFlight + " async lock cycle chains "
                        + "still running " + timeout.toSeconds() + " s after the start");
            }
        }
        return LoadResult.merge(chains.stream().map(chain -> chain.result).toList(), start);
    }

    /**
     * One sequence of cycles, one at a time. Its result is written by whichever thread runs its current step; each
     * step starts from the completion of the one before, which orders the writes.
     */
    private final class Chain {

        private final int index;

        private final String key;

        private final ThreadResult result = new ThreadResult();

        Chain(int index, String key) {
            this.index = index;
            this.key = key;
        }

        /** Starts the next cycle, or ends the chain; a deep stack of inline completions is unwound first. */
        void next() {
            int[] depth = DEPTH.get();
            if (depth[0] >= MAX_DEPTH) {
                AsyncLoad.this.restarts.add(this);
                return;
            }
            depth[0]++;
            try {
                cycle();
            }
            finally {
                depth[0]--;
            }
        }

        private void cycle() {
            if (AsyncLoad.this.stopped || System.nanoTime() - AsyncLoad.this.deadline >= 0
                    || this.result.errors() >= MAX_ERRORS) {
                this.result.finished();
                AsyncLoad.this.ended.countDown();
                return;
            }
            long start = System.nanoTime();
            CompletionStage<AsyncLockClient.Held> acquiring;
            try {
                acquiring = AsyncLoad.this.client.acquire(this.key, this.index);
            }
            catch (RuntimeException ex) {
                failed(ex);
                return;
            }
            acquiring.whenComplete((held, failure) -> {
                if (failure != null) {
                    failed(failure);
                    return;
                }
                if (AsyncLoad.this.handOff != null) {
                    AsyncLoad.this.handOff.acquired(this.result);
                    AsyncLoad.this.handOff.releasing();
                }
                CompletionStage<Void> releasing;
                try {
                    releasing = held.release();
                }
                catch (RuntimeException ex) {
                    failed(ex);
                    return;
                }
                releasing.whenComplete((ignored, releaseFailure) -> {
                    if (releaseFailure != null) {
                        failed(releaseFailure);
                        return;
                    }
                    this.result.cycle(System.nanoTime() - start);
                    next();
                });
            });
        }

        private void failed(Throwable failure) {
            Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
                    ? failure.getCause() : failure;
            this.result.error((cause instanceof Exception ex) ? ex : new RuntimeException(cause));
            AsyncLoad.this.restarts.add(this);
        }
    }
}
