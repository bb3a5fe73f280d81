package dev.distlock.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.HdrHistogram.Histogram;

import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.harness.Latencies;

/**
 * One client process of scenario 6: opens a client of one implementation, waits for the agreed start time, runs its
 * threads on one hot key until the agreed end, and prints one line {@code RESULT cycles=... p50=... p99=... max=...
 * timeouts=...} (waits in microseconds: from the acquire call to its return).
 *
 * <p>Arguments: port, implementation label, threads, watchdog lease ms, max wait ms, start and end (epoch ms).
 */
public final class TwoProcessWorker {

    static final String KEY = "two-process-hot";

    private TwoProcessWorker() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Implementation implementation = Implementation.parse(args[1]).get(0);
        int threads = Integer.parseInt(args[2]);
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        Duration maxWait = Duration.ofMillis(Long.parseLong(args[4]));
        long startMillis = Long.parseLong(args[5]);
        long endMillis = Long.parseLong(args[6]);
        AtomicLong timeouts = new AtomicLong();
        AtomicLong cycles = new AtomicLong();
        List<Histogram> histograms = new ArrayList<>();
        try (LockClient client = implementation.open(new ClientSettings(port, lease, maxWait))) {
            client.acquire(KEY + "-warm-up").release(); // connections and scripts ready before the start
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Histogram waits = Latencies.newHistogram();
                histograms.add(waits);
                Thread worker = new Thread(() -> run(client, waits, cycles, timeouts, endMillis), "two-process-" + t);
                workers.add(worker);
            }
            long untilStart = startMillis - System.currentTimeMillis();
            if (untilStart > 0) {
                TimeUnit.MILLISECONDS.sleep(untilStart);
            }
            workers.forEach(Thread::start);
            for (Thread worker : workers) {
                worker.join(endMillis - System.currentTimeMillis() + maxWait.toMillis() + 10_000);
            }
        }
        Histogram all = Latencies.newHistogram();
        histograms.forEach(all::add);
        System.out.println(String.format(Locale.ROOT, "RESULT cycles=%d p50=%.1f p99=%.1f max=%.1f timeouts=%d",
                cycles.get(), Latencies.percentileMicros(all, 50), Latencies.percentileMicros(all, 99),
                Latencies.percentileMicros(all, 100), timeouts.get()));
        System.out.flush();
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    private static void run(LockClient client, Histogram waits, AtomicLong cycles, AtomicLong timeouts,
            long endMillis) {
        while (System.currentTimeMillis() < endMillis) {
            long start = System.nanoTime();
            try {
                LockClient.Held held = client.acquire(KEY);
                Latencies.record(waits, System.nanoTime() - start);
                held.release();
                cycles.incrementAndGet();
            }
            catch (LockClient.AcquireTimeoutException ex) {
                Latencies.record(waits, System.nanoTime() - start);
                timeouts.incrementAndGet();
            }
            catch (Exception ex) {
                System.err.println("two-process worker: " + ex);
                return;
            }
        }
    }
}
