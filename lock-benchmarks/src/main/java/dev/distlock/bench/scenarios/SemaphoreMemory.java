package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Pattern;

import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.SemaphoreClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.redis.RedisProbe;

/**
 * What scenario 11's semaphores take in Redis, on an emptied server: {@value #SEMAPHORES} semaphores of 5 made ready
 * and given one held permit each, then four more permits held on each (all 5 in use), then all released. At each step
 * a {@link Snapshot} reads {@code used_memory} less the clients' buffers once it has settled (everything the data
 * costs, the keyspace's tables included) and, as a check, the sum of every key's {@code MEMORY USAGE}. Both
 * implementations get a lease of {@link #LEASE}, long enough that nothing expires or is renewed meanwhile. One
 * semaphore's keys with 5 permits held are listed too.
 */
final class SemaphoreMemory {

    static final int SEMAPHORES = 1_000;

    static final Duration LEASE = Duration.ofMinutes(2);

    private static final Duration BOUND = Duration.ofMinutes(2);

    private static final int THREADS = 4;

    private static final Duration SETTLE = Duration.ofMillis(250);

    /** Bytes two reads may differ by and count as settled: a few bytes per semaphore. */
    private static final long SETTLED_WITHIN = 1_024;

    private static final String PREFIX = "s11:mem:";

    private SemaphoreMemory() {
    }

    /**
     * Redis memory at one step.
     *
     * @param usedMemory {@code used_memory} less the clients' buffers, once two reads {@link #SETTLE} apart agree
     * @param keyBytes the sum of every key's {@code MEMORY USAGE}
     * @param keys how many keys there were
     */
    record Snapshot(long usedMemory, long keyBytes, long keys) {

        static Snapshot of(RedisProbe probe) throws InterruptedException {
            long deadline = System.nanoTime() + SETTLE.multipliedBy(20).toNanos();
            long before = probe.memoryWithoutClients();
            Thread.sleep(SETTLE.toMillis());
            long used = probe.memoryWithoutClients();
            while (Math.abs(used - before) > SETTLED_WITHIN && System.nanoTime() - deadline < 0) {
                before = used;
                Thread.sleep(SETTLE.toMillis());
                used = probe.memoryWithoutClients();
            }
            return new Snapshot(used, probe.keyBytes("*"), probe.keyCount());
        }
    }

    /**
     * One implementation's memory: snapshots of the emptied server, with one permit held on each semaphore, with all
     * 5 held, and right after every release; and one semaphore's keys with 5 held.
     */
    record Result(Snapshot empty, Snapshot oneEach, Snapshot full, Snapshot released,
            List<String> keysOfFullSemaphore) {

        /** A semaphore made ready, with one permit held (used_memory). */
        double bytesPerSemaphore() {
            return (this.oneEach.usedMemory() - this.empty.usedMemory()) / (double) SEMAPHORES;
        }

        /** The same from the keys' MEMORY USAGE. */
        double keyBytesPerSemaphore() {
            return (this.oneEach.keyBytes() - this.empty.keyBytes()) / (double) SEMAPHORES;
        }

        /** Each further held permit, the 2nd to 5th of each semaphore (used_memory). */
        double bytesPerFurtherPermit() {
            return (this.full.usedMemory() - this.oneEach.usedMemory()) / (double) furtherPermits();
        }

        /** The same from the keys' MEMORY USAGE. */
        double keyBytesPerFurtherPermit() {
            return (this.full.keyBytes() - this.oneEach.keyBytes()) / (double) furtherPermits();
        }

        private static long furtherPermits() {
            return (long) SEMAPHORES * (SemaphoreClient.LIMIT - 1);
        }

        double keysPerFullSemaphore() {
            return (this.full.keys() - this.empty.keys()) / (double) SEMAPHORES;
        }

        /** Keys and their memory left per semaphore right after the last release. */
        double keysLeftPerSemaphore() {
            return (this.released.keys() - this.empty.keys()) / (double) SEMAPHORES;
        }

        double bytesLeftPerSemaphore() {
            return (this.released.usedMemory() - this.empty.usedMemory()) / (double) SEMAPHORES;
        }
    }

    static Result measure(Implementation implementation, BenchContext context) throws Exception {
        RedisProbe probe = context.probe();
        ClientSettings settings = new ClientSettings(context.port(), LEASE, context.config().maxWait());
        try (SemaphoreClient client = SemaphoreClient.open(implementation, settings);
                WorkerPool pool = new WorkerPool(THREADS, "bench-s11-memory")) {
            client.prepare("s11:warm-up");
            client.acquire("s11:warm-up").release(); // scripts loaded and connections open before the baseline
            probe.keyBytes("*");
            context.flush();
            List<SemaphoreClient.Permit> held = Collections.synchronizedList(new ArrayList<>());
            Snapshot empty = Snapshot.of(probe);
            try {
                pool.runOnAll(index -> take(client, index, 1, true, held), BOUND);
                Snapshot oneEach = Snapshot.of(probe);
                pool.runOnAll(index -> take(client, index, SemaphoreClient.LIMIT - 1, false, held), BOUND);
                Snapshot full = Snapshot.of(probe);
                List<String> keys = keysOf(probe, PREFIX + "0");
                releaseAll(pool, held);
                return new Result(empty, oneEach, full, Snapshot.of(probe), keys);
            }
            finally {
                releaseAll(pool, held);
            }
        }
    }

    /** Worker {@code index} takes {@code permits} permits on each semaphore of its share, preparing them first. */
    private static Void take(SemaphoreClient client, int index, int permits, boolean prepare,
            List<SemaphoreClient.Permit> held) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        for (int i = index; i < SEMAPHORES && System.nanoTime() - deadline < 0; i += THREADS) {
            if (prepare) {
                client.prepare(PREFIX + i);
            }
            for (int p = 0; p < permits; p++) {
                held.add(client.acquire(PREFIX + i));
            }
        }
        return null;
    }

    private static void releaseAll(WorkerPool pool, List<SemaphoreClient.Permit> held) throws Exception {
        List<SemaphoreClient.Permit> permits;
        synchronized (held) {
            permits = List.copyOf(held);
            held.clear();
        }
        pool.runOnAll(index -> {
            for (int i = index; i < permits.size(); i += THREADS) {
                permits.get(i).release();
            }
            return null;
        }, BOUND);
    }

    /** The keys of one semaphore: its name followed by a character that cannot continue another one's number. */
    private static List<String> keysOf(RedisProbe probe, String name) {
        Pattern own = Pattern.compile(Pattern.quote(name) + "(\\D|$)");
        return probe.keys("*" + name + "*").stream().filter(key -> own.matcher(key).find()).sorted().toList();
    }
}
