package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;

/**
 * The checks at the end of a run: with every handle released, every key can be taken again; a service closed with
 * acquisitions in flight completes every one of them promptly and still releases what it holds; once every service is
 * closed, no library thread is left and Redis keeps no lock key longer than the release retention.
 */
final class ExplorerEndChecks {

    /** Lua: every key with its PTTL, one per line. */
    private static final String KEYS_WITH_TTL = "local out = {} for _, k in ipairs(redis.call('KEYS', '*')) do "
            + "out[#out + 1] = k .. ' ' .. redis.call('PTTL', k) end return table.concat(out, '\\n')";

    /** The longest a key may outlive its last release: the service's default token retention, and a margin. */
    private static final long RETENTION_MILLIS = Duration.ofSeconds(10).toMillis() + 1000;

    private final ExplorerRun run;

    private final ExplorerJournal journal;

    private final List<RedisNode> masters;

    private final List<LockService> services;

    private final LockService probe;

    private final Random random;

    ExplorerEndChecks(ExplorerRun run, List<RedisNode> masters, Clients clients, List<LockService> services,
            long seed) {
        this.run = run;
        this.journal = run.journal();
        this.masters = masters;
        this.services = services;
        this.probe = run.service(clients, masters.stream().map(RedisNode::port).toList(), Duration.ofSeconds(2));
        this.random = new Random(seed);
    }

    /**
     * Every key can be taken by a new owner within the longest lease, waiter lease and margin after the last handle
     * was released and the last call completed: nothing holds a lock nobody has a handle of.
     */
    void everyKeyFree(long freedAt) throws InterruptedException {
        long limit = freedAt + TimeUnit.MILLISECONDS.toNanos(1600 + ExplorerSettings.WATCHDOG_LEASE.toMillis()
                + ExplorerSettings.WAITER_LEASE.toMillis() + ExplorerSettings.MARGIN_MILLIS);
        for (Map.Entry<String, LockMode> key : ExplorerRun.probeModes().entrySet()) {
            this.journal.checked();
            LockMode mode = this.run.quorum() ? LockMode.EXCLUSIVE : key.getValue();
            if (!probeUntil(key.getKey(), mode, limit)) {
                this.journal.violation(key.getKey() + " was still held " + (System.nanoTime() - freedAt) / 1_000_000
                        + " ms after every handle was released and every call had completed (a hold nobody has a "
                        + "handle of)");
            }
        }
    }

    /**
     * Every semaphore's count is back to 0: all its permits can be taken at once by a new holder within the same
     * bound (not in quorum mode, which refuses semaphores).
     */
    void everyPermitFree(long freedAt) throws InterruptedException {
        if (this.run.quorum()) {
            return;
        }
        long limit = freedAt + TimeUnit.MILLISECONDS.toNanos(1600 + ExplorerSettings.WATCHDOG_LEASE.toMillis()
                + ExplorerSettings.WAITER_LEASE.toMillis() + ExplorerSettings.MARGIN_MILLIS);
        for (int i = 0; i < ExplorerPermits.KEYS.length; i++) {
            this.journal.checked();
            int permits = ExplorerPermits.LIMITS[i];
            LockOptions all = LockOptions.defaults().withPermits(permits, permits)
                .withLeaseTime(Duration.ofMillis(500));
            if (!probeUntil(ExplorerPermits.KEYS[i], all, limit)) {
                this.journal.violation(ExplorerPermits.KEYS[i] + ": its " + permits + " permits could not all be "
                        + "taken " + (System.nanoTime() - freedAt) / 1_000_000 + " ms after every handle was "
                        + "released and every call had completed (permits counted that nobody holds)");
            }
        }
    }

    private boolean probeUntil(String key, LockMode mode, long limitNanos) throws InterruptedException {
        return probeUntil(key, ExplorerRun.probeOptions(mode), limitNanos);
    }

    private boolean probeUntil(String key, LockOptions options, long limitNanos) throws InterruptedException {
        while (true) {
            try {
                Optional<LockHandle> lock = this.probe.tryAcquire(key, options);
                if (lock.isPresent()) {
                    ExplorerRun.releaseQuietly(lock.get());
                    return true;
                }
            }
            catch (RuntimeException ex) {
                this.journal.log("probe of " + key + ": " + ExplorerWorker.describe(ex));
            }
            if (System.nanoTime() > limitNanos) {
                return false;
            }
            Thread.sleep(100);
        }
    }

    /**
     * One service is closed while it holds a lock and has acquisitions (of a lock, and of the only permit of a semaphore
     * outside quorum mode) waiting and in flight (replies delayed): each
     * acquisition completes promptly, and the held lock is released after the close, with the non-blocking release.
     */
    void closeWithWorkInFlight(List<FaultProxy> closingProxies) throws Exception {
        this.journal.operation("close with work in flight");
        LockService keeper = this.services.get(0);
        LockService closing = this.services.get(this.services.size() - 1);
        String contended = "close:0"; // keys of their own: a hold leaked during the run must not hide this check
        String held = "close:1";
        LockHandle keeperLock;
        LockHandle closingLock;
        try {
            keeperLock = keeper.acquire(contended, LockOptions.defaults().withWaitTime(Duration.ofSeconds(5))
                .withLeaseTime(Duration.ofSeconds(3)).withOwner(new Object()));
            // a fixed lease: close() stops the watchdog, and the check below is about the release, not the lease
            closingLock = closing.acquire(held, LockOptions.defaults().withWaitTime(Duration.ofSeconds(5))
                .withLeaseTime(Duration.ofSeconds(20)).withOwner(new Object()));
        }
        catch (RuntimeException ex) {
            this.journal.violation("could not take a free lock after the run: " + ExplorerWorker.describe(ex));
            return;
        }
        List<CompletableFuture<?>> pending = new ArrayList<>();
        LockHandle keeperPermit = null;
        if (!this.run.quorum()) { // the only permit of a semaphore, waited for by the closing service too
            LockOptions permit = LockOptions.defaults().withPermits(1).withWaitTime(Duration.ofSeconds(5));
            try {
                keeperPermit = keeper.acquire("close:2", permit.withLeaseTime(Duration.ofSeconds(3)));
            }
            catch (RuntimeException ex) {
                this.journal.violation("could not take a free permit after the run: " + ExplorerWorker.describe(ex));
                ExplorerRun.releaseQuietly(keeperLock);
                ExplorerRun.releaseQuietly(closingLock);
                return;
            }
            pending.add(closing.async().acquire("close:2", permit));
            pending.add(CompletableFuture.supplyAsync(() -> closing.acquire("close:2", permit), this.run.helper()));
        }
        for (int i = 0; i < 4; i++) {
            LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)).withOwner(new Object());
            pending.add(i % 2 == 0 ? closing.async().acquire(contended, options)
                    : closing.async().tryAcquire(contended, options));
        }
        pending.add(CompletableFuture.supplyAsync(() -> closing.acquire(contended,
                LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)).withOwner(new Object())), this.run.helper()));
        long delay = 100 + this.random.nextInt(500);
        for (FaultProxy proxy : closingProxies) {
            proxy.delayReplies(Duration.ofMillis(300), Duration.ofMillis(delay));
        }
        Thread.sleep(this.random.nextInt(400));
        for (int i = 0; i < 2; i++) {
            pending.add(closing.async().acquire(contended, LockOptions.defaults().withWaitTime(Duration.ofSeconds(5))
                .withOwner(new Object())));
        }
        this.journal.log("closing service " + (this.services.size() - 1) + " with " + pending.size()
                + " acquisitions pending");
        long closedAt = System.nanoTime();
        ((AutoCloseable) closing).close();
        long bound = TimeUnit.MILLISECONDS.toNanos(3 * ExplorerSettings.COMMAND_TIMEOUT.toMillis() + 2000);
        for (CompletableFuture<?> future : pending) {
            this.journal.checked();
            while (!future.isDone() && System.nanoTime() - closedAt < bound) {
                Thread.sleep(20);
            }
            if (!future.isDone()) {
                this.journal.violation("an acquisition pending when its service was closed was still pending "
                        + (System.nanoTime() - closedAt) / 1_000_000 + " ms after the close");
            }
            else if (!future.isCompletedExceptionally()) {
                Object value = future.getNow(null);
                if (value instanceof LockHandle lock) {
                    ExplorerRun.releaseQuietly(lock);
                }
                else if (value instanceof Optional<?> optional && optional.isPresent()) {
                    ExplorerRun.releaseQuietly((LockHandle) optional.get());
                }
            }
        }
        this.journal.checked();
        try {
            closingLock.releaseAsync().get(3 * ExplorerSettings.COMMAND_TIMEOUT.toMillis() + ExplorerSettings.MARGIN_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
        catch (Exception ex) {
            this.journal.violation("releaseAsync() after close() failed: " + ExplorerWorker.describe(
                    ex.getCause() != null ? ex.getCause() : ex));
        }
        ExplorerRun.releaseQuietly(keeperLock);
        if (keeperPermit != null) {
            ExplorerRun.releaseQuietly(keeperPermit);
        }
        long released = System.nanoTime();
        if (!probeUntil(held, LockMode.EXCLUSIVE, released + TimeUnit.MILLISECONDS.toNanos(2000))) {
            this.journal.violation(held + " still held after its handle was released following close()");
        }
    }

    /**
     * After every service is closed: no library thread, no lock key that outlives the release retention, and no key
     * without an expiry.
     */
    void nothingLeft() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        Set<String> threads = ExplorerRun.libraryThreads();
        while (!threads.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            threads = ExplorerRun.libraryThreads();
        }
        this.journal.checked();
        if (!threads.isEmpty()) {
            this.journal.violation("library threads left after every service was closed: " + threads);
        }
        StringBuilder all = new StringBuilder();
        for (RedisNode master : this.masters) {
            String keys = master.call("EVAL", KEYS_WITH_TTL, "0");
            if (keys != null && !keys.isBlank()) {
                all.append(keys).append('\n');
            }
        }
        this.journal.log("keys left: " + all.toString().replace('\n', ','));
        for (String line : all.toString().split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            this.journal.checked();
            String[] parts = line.trim().split(" ");
            long ttl = Long.parseLong(parts[parts.length - 1]);
            // a lock hash (and a semaphore's leases, count, holders and queue) must be gone by the end of the
            // retention; other keys (fence counters, whose retention is
            // longer by design) must at least expire
            if (ttl < 0 || ((parts[0].endsWith(":lock") || semaphoreState(parts[0])) && ttl > RETENTION_MILLIS)) {
                this.journal.violation("key " + parts[0] + " left in Redis with a PTTL of " + ttl + " ms after "
                        + "every service was closed");
            }
        }
    }

    /** A semaphore's key other than its last fencing token (which, like a lock's, stays for the token retention). */
    private static boolean semaphoreState(String key) {
        return key.contains(":sem:") && !key.endsWith(":sem:fence");
    }
}
