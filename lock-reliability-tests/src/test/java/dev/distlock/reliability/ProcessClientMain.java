package dev.distlock.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;

/**
 * One client process of the explorer's process mode ({@link ProcessRun}): worker threads draw lock and semaphore
 * operations from a seed (or perform a schedule's) and report on stdout, on {@link System#nanoTime()} (Linux's
 * CLOCK_MONOTONIC, shared by the processes of one host), what the parent's checker needs ({@link ProcessHistory}):
 * <pre>
 * O worker atMillis state kind          an operation starts (its worker's random state decides it whole)
 * G handle key permits token asked granted leaseMs(0: watchdog)
 * N key permits asked ended exception   not granted
 * D handle nanos deadlineNanos          the handle's lease deadline (every 50 ms while held)
 * L handle nanos                        told the lease was lost
 * A handle nanos accepted|rejected      the fenced write of a lock's section
 * E handle endNanos held deadlineNanos  the section ends (held: isHeld() then)
 * R handle sentNanos doneNanos outcome  the release (ok, or the exception's simple name)
 * </pre>
 * Arguments: lock port (or a cluster's {@link ProcessCluster#address()}), resource port, client name ({@code probe}: take every key once, after a run), seed, the clock
 * file (the run's start and end in nanos, written by the parent once every first client is ready; the child says
 * {@code READY} and waits for it), restart grace ms, schedule file or -.
 */
public final class ProcessClientMain {

    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(400);

    static final Duration WATCHDOG_LEASE = Duration.ofMillis(1500);

    /** On a Redis Cluster: how long a grant or renewal waits for its replica (below the command timeout). */
    static final Duration ACKNOWLEDGEMENT_TIMEOUT = Duration.ofMillis(250);

    private static final AtomicLong HANDLES = new AtomicLong();

    private static final Map<Long, LockHandle> HELD = new ConcurrentHashMap<>();

    private ProcessClientMain() {
    }

    public static void main(String[] args) throws Exception {
        int resourcePort = Integer.parseInt(args[1]);
        String client = args[2];
        long seed = Long.parseLong(args[3]);
        Path clock = Path.of(args[4]);
        Duration grace = Duration.ofMillis(Long.parseLong(args[5]));
        List<String> schedule = args[6].equals("-") ? null : Files.readAllLines(Path.of(args[6]));
        try (Clients clients = new Clients()) {
            RedisLockService locks = lockService(clients, args[0], grace, client);
            if (client.equals("probe")) {
                probe(locks);
                System.exit(0);
            }
            ProcessOps ops = new ProcessOps(locks, clients.template(resourcePort, Duration.ofSeconds(2)),
                    ProcessClientMain::say, ProcessClientMain::track);
            Thread reporter = new Thread(ProcessClientMain::reportDeadlines, "deadlines");
            reporter.setDaemon(true);
            reporter.start();
            say("READY");
            long giveUp = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!Files.exists(clock) && System.nanoTime() - giveUp < 0) {
                TimeUnit.MILLISECONDS.sleep(10);
            }
            String[] times = Files.readString(clock).trim().split(" ");
            long t0 = Long.parseLong(times[0]);
            long end = Long.parseLong(times[1]);
            List<Thread> workers = new ArrayList<>();
            for (int w = 0; w < ProcessOps.WORKERS; w++) {
                int worker = w;
                List<long[]> mine = schedule == null ? null : ProcessOps.opsOf(schedule, client, worker);
                Thread thread = new Thread(() -> ops.work(worker, seed * 31 + worker, t0, end, mine), "w" + w);
                thread.start();
                workers.add(thread);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            say("DONE");
        }
        catch (Throwable ex) {
            say("ERROR " + ex);
            System.exit(2);
        }
        System.exit(0);
    }

    /**
     * The service on one Redis, or on a Redis Cluster followed through failovers as docs/topologies.md says (one
     * client refreshes its view rarely, {@link ProcessCluster#refreshPeriod}), with one replica's acknowledgement
     * (what the default decides when it reads the topology at startup; set explicitly, since a first read that times
     * out under load decides none) within a timeout below the command timeout, as docs/safety-restarts.md advises.
     */
    private static RedisLockService lockService(Clients clients, String address, Duration grace, String client) {
        if (!address.startsWith(ProcessCluster.PREFIX)) {
            return clients.service(Integer.parseInt(address), COMMAND_TIMEOUT,
                    b -> b.watchdogLease(WATCHDOG_LEASE).restartGrace(grace));
        }
        TopologyClients cluster = new TopologyClients();
        clients.register(cluster);
        return cluster.service(cluster.clusterFollowingFailovers(ProcessCluster.seedNodes(address),
                ProcessCluster.refreshPeriod(client), COMMAND_TIMEOUT), b -> b.watchdogLease(WATCHDOG_LEASE)
                    .restartGrace(grace)
                    .replicaAcknowledgements(1, ACKNOWLEDGEMENT_TIMEOUT));
    }

    /** After a run: takes every key, and every permit of the semaphore, reporting {@code P key ok|exception}. */
    private static void probe(RedisLockService locks) {
        for (String key : ProcessOps.KEYS) {
            LockOptions options = options(key, ProcessOps.LIMIT, Duration.ofSeconds(15), 5000);
            try (LockHandle handle = locks.acquire(key, options)) {
                say("P " + key + " ok");
            }
            catch (RuntimeException ex) {
                say("P " + key + " " + ex.toString().replace('\n', ' '));
            }
        }
    }

    /** Registers a held handle for the deadline reports (null handle: released), returns its id. */
    private static long track(long id, LockHandle handle) {
        long handleId = id == 0 ? HANDLES.incrementAndGet() : id;
        if (handle == null) {
            HELD.remove(handleId);
        }
        else {
            HELD.put(handleId, handle);
        }
        return handleId;
    }

    private static void reportDeadlines() {
        while (true) {
            for (Map.Entry<Long, LockHandle> held : HELD.entrySet()) {
                say("D " + held.getKey() + " " + System.nanoTime() + " " + nanos(held.getValue().leaseDeadline()));
            }
            try {
                TimeUnit.MILLISECONDS.sleep(50);
            }
            catch (InterruptedException ex) {
                return;
            }
        }
    }

    /** An instant on this machine's clock as a nanoTime reading. */
    static long nanos(Instant instant) {
        return System.nanoTime() + Duration.between(Instant.now(), instant).toNanos();
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static LockOptions options(String key, int permits, Duration wait, long leaseMillis) {
        LockOptions options = LockOptions.defaults().withWaitTime(wait);
        options = leaseMillis == 0 ? options.withWatchdog() : options.withLeaseTime(Duration.ofMillis(leaseMillis));
        if (key.equals(ProcessOps.FAIR)) {
            return options.withMode(LockMode.FAIR);
        }
        if (key.equals(ProcessOps.SEMAPHORE)) {
            return options.withPermits(ProcessOps.LIMIT, permits);
        }
        return options;
    }
}
