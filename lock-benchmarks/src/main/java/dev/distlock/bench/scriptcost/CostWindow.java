package dev.distlock.bench.scriptcost;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongPredicate;

import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.redis.ServerUsage;

/**
 * Runs one {@link CostCase} alone on an emptied Redis: its setup, then its measured calls between {@code CONFIG
 * RESETSTAT} and {@code INFO commandstats} / {@code INFO cpu}, a bounded number in flight on the one shared connection.
 */
public final class CostWindow {

    /** Calls in flight at once: enough to keep Redis busy, few enough that one connection's buffers stay small. */
    private static final int IN_FLIGHT = 32;

    private static final long CALL_TIMEOUT_SECONDS = 30;

    private final RedisProbe probe;

    private final int calls;

    public CostWindow(RedisProbe probe, int calls) {
        this.probe = probe;
        this.calls = calls;
    }

    /** One window of {@code testCase}. */
    public Sample run(CostCase testCase) {
        this.probe.flushAll();
        for (IntFunction<CompletableFuture<Long>> step : testCase.setup()) {
            int[] unused = new int[1];
            drive(step, reply -> true, unused);
        }
        int[] wrong = new int[1];
        RedisProbe.Window window = this.probe.start();
        drive(testCase.call(), testCase.expected(), wrong);
        ServerUsage usage = window.finish();
        return new Sample(usage, this.calls, wrong[0]);
    }

    private void drive(IntFunction<CompletableFuture<Long>> call, LongPredicate expected, int[] wrong) {
        Deque<CompletableFuture<Long>> inFlight = new ArrayDeque<>();
        for (int i = 0; i < this.calls; i++) {
            if (inFlight.size() == IN_FLIGHT) {
                check(inFlight.removeFirst(), expected, wrong);
            }
            inFlight.addLast(call.apply(i));
        }
        while (!inFlight.isEmpty()) {
            check(inFlight.removeFirst(), expected, wrong);
        }
    }

    private static void check(CompletableFuture<Long> reply, LongPredicate expected, int[] wrong) {
        try {
            if (!expected.test(reply.get(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS))) {
                wrong[0]++;
            }
        }
        catch (Exception ex) {
            if (wrong[0]++ == 0) {
                System.err.println("a measured call failed: " + ex);
            }
        }
    }

    /**
     * What one window measured.
     *
     * @param usage Redis's counters over the window
     * @param calls measured calls
     * @param wrong calls that answered otherwise than the case expects, or failed
     */
    public record Sample(ServerUsage usage, int calls, int wrong) {

        /** Microseconds Redis spent in the scripts (EVALSHA, EVAL), inner commands included, per measured call. */
        public double scriptMicrosPerCall() {
            long scriptMicros = this.usage.scriptMicros();
            long plain = this.usage.usec().entrySet().stream()
                .filter(entry -> this.usage.scriptCalls() == 0)
                .mapToLong(Map.Entry::getValue)
                .sum();
            return (double) (scriptMicros + plain) / this.calls;
        }

        /** Redis process CPU (user + system, network included) per measured call. */
        public double cpuMicrosPerCall() {
            return (double) this.usage.cpuMicros() / this.calls;
        }

        /** Commands the script ran inside Redis per call (the EVALSHA itself not counted). */
        public double innerCommandsPerCall() {
            return (double) (this.usage.totalCalls() - this.usage.scriptCalls()) / this.calls;
        }
    }
}
