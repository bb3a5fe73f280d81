package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.reliability.mixed.PreviousEngine;
import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * One seeded run of the fault explorer: two lock services, each behind its own {@link FaultProxy} in front of one
 * Redis, with client threads drawing operations from the seed while a fault thread draws faults from it; then the
 * end-of-run checks (every handle released leaves every key free, a service closed with work in flight completes it
 * all, no library thread and no lock key is left). The thread interleaving is not decided by the seed, so a replay
 * reproduces the schedule of operations and faults, and usually, not always, the failure.
 */
final class ExplorerRun {

    private final ExplorerSettings settings;

    private final ExplorerJournal journal = new ExplorerJournal();

    private final Map<String, List<Section>> sections = new ConcurrentHashMap<>();

    private final Map<String, FencedResource> resources = new ConcurrentHashMap<>();

    private final Map<String, SemaphoreResource> semaphoreResources = new ConcurrentHashMap<>();

    private final Map<String, List<ExplorerPermits.PermitHold>> permitHolds = new ConcurrentHashMap<>();

    private final List<Object[]> tracked = new CopyOnWriteArrayList<>();

    private final ExecutorService helper = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "explorer-helper");
        thread.setDaemon(true);
        return thread;
    });

    private volatile boolean stopping;

    private final List<FaultProxy> proxies = new CopyOnWriteArrayList<>();

    /** Per service, its proxies: one, or one per master in quorum mode. */
    private final List<List<FaultProxy>> serviceProxies = new CopyOnWriteArrayList<>();

    /** When a {@link ExplorerSettings#LEASE_DELETE} fault last deleted each key: its DEL sent, and answered. */
    private final Map<String, long[]> leaseDeletes = new ConcurrentHashMap<>();

    /** The lock servers: one, or three in quorum mode. */
    private final List<RedisNode> masters = new CopyOnWriteArrayList<>();

    /** The schedule to perform instead of drawing one (null: draw from the seed). */
    private final ExplorerSchedule schedule;

    /** What this run performed: its operations and scheduled faults, drawn or given. */
    private final List<ExplorerSchedule.Item> performed = new CopyOnWriteArrayList<>();

    private volatile long clientsStarted;

    ExplorerRun(ExplorerSettings settings) {
        this.settings = settings;
        this.schedule = null;
    }

    /** A run that performs this schedule's operations and faults, and draws none. */
    ExplorerRun(ExplorerSchedule schedule) {
        this.settings = schedule.settings();
        this.schedule = schedule;
    }

    /** The schedule given to this run, or null when it draws its own. */
    ExplorerSchedule schedule() {
        return this.schedule;
    }

    /** Milliseconds since the client threads started. */
    long sinceClientsStarted() {
        return (System.nanoTime() - this.clientsStarted) / 1_000_000;
    }

    void record(ExplorerSchedule.Item item) {
        this.performed.add(item);
    }

    /** What this run performed, as a schedule a replay can take. */
    ExplorerSchedule performed() {
        List<ExplorerSchedule.Item> items = new ArrayList<>(this.performed);
        items.sort(java.util.Comparator.comparingLong(ExplorerSchedule.Item::atMillis));
        String faults = this.settings.faults().isEmpty() ? "none" : String.join(",", this.settings.faults());
        return new ExplorerSchedule(this.settings.seed(), (int) this.settings.runTime().toSeconds(), faults,
                this.settings.quorum(), this.settings.mixed(), items);
    }

    ExplorerJournal journal() {
        return this.journal;
    }

    ExecutorService helper() {
        return this.helper;
    }

    /** Quorum services take exclusive locks only. */
    boolean quorum() {
        return this.settings.quorum();
    }

    ExplorerSettings settings() {
        return this.settings;
    }

    boolean stopping() {
        return this.stopping;
    }

    /** Runs the seed and returns what it found. */
    ExplorerResult run() throws Exception {
        long started = System.nanoTime();
        Random random = new Random(this.settings.seed());
        try (RedisServers servers = RedisServers.create(); Clients clients = new Clients()) {
            List<RedisNode> masters = this.masters;
            for (int m = 0; m < (this.settings.quorum() ? 3 : 1); m++) {
                masters.add(servers.start());
            }
            RedisNode resourceServer = servers.start();
            List<FaultProxy> proxies = this.proxies;
            List<LockService> services = new ArrayList<>();
            PreviousEngine previous = this.settings.mixed() ? PreviousEngine.load() : null;
            this.journal.log("run of seed " + this.settings.seed() + (this.settings.quorum() ? " in quorum mode" : "")
                    + (previous == null ? "" : ", mixed: service " + (this.settings.services() - 1)
                            + " runs the previous layout's code (" + previous.commit() + ")"));
            try {
                StringRedisTemplate resourceClient = clients.template(resourceServer.port(), Duration.ofSeconds(5));
                for (String key : allKeys()) {
                    this.sections.put(key, new CopyOnWriteArrayList<>());
                    this.resources.put(key, new FencedResource(resourceClient, key));
                }
                for (String key : ExplorerPermits.KEYS) {
                    this.permitHolds.put(key, new CopyOnWriteArrayList<>());
                    this.semaphoreResources.put(key, new SemaphoreResource(resourceClient, key));
                }
                for (int s = 0; s < this.settings.services(); s++) {
                    List<FaultProxy> own = new ArrayList<>();
                    for (RedisNode master : masters) {
                        own.add(FaultProxy.start(master.port()));
                    }
                    proxies.addAll(own);
                    this.serviceProxies.add(own);
                    boolean last = s == this.settings.services() - 1;
                    services.add(service(clients, own.stream().map(FaultProxy::port).toList(),
                            ExplorerSettings.COMMAND_TIMEOUT, last ? previous : null));
                }
                List<Thread> workers = new ArrayList<>();
                for (int s = 0; s < services.size(); s++) {
                    for (int w = 0; w < this.settings.workersPerService(); w++) {
                        Thread worker = new Thread(new ExplorerWorker(this, s, w, services.get(s), random.nextLong()),
                                "explorer-s" + s + "-w" + w);
                        worker.setDaemon(true);
                        // an Error (a LinkageError of the previous engine among them) must not just end a client
                        worker.setUncaughtExceptionHandler((thread, ex) -> this.journal.violation("client thread "
                                + thread.getName() + " died: " + ex + stack(ex)));
                        workers.add(worker);
                    }
                }
                ExplorerFaults faults = new ExplorerFaults(this, masters, proxies, random.nextLong());
                Thread faultThread = new Thread(faults, "explorer-faults");
                faultThread.setDaemon(true);
                this.clientsStarted = System.nanoTime();
                workers.forEach(Thread::start);
                faultThread.start();
                long end = this.clientsStarted + this.settings.runTime().toNanos()
                        + (this.schedule == null ? 0 : ExplorerSchedule.GRACE.toNanos());
                while (System.nanoTime() < end) {
                    Thread.sleep(200);
                    checkTracked();
                    if (this.schedule != null && !faultThread.isAlive()
                            && workers.stream().noneMatch(Thread::isAlive)) {
                        end = System.nanoTime(); // a given schedule ends with its last operation or fault
                    }
                }
                this.stopping = true;
                faults.stop();
                faultThread.join(10_000);
                masters.forEach(RedisNode::resume);
                for (Thread worker : workers) {
                    worker.join(Math.max(1, 20_000 - (System.nanoTime() - end) / 1_000_000));
                    if (worker.isAlive()) {
                        this.journal.violation("client thread " + worker.getName() + " still busy 20 s after the run "
                                + "ended: " + stack(worker));
                    }
                }
                waitForTracked();
                checkHistory();
                checkSemaphores();
                checkPreviousServiceWorked();
                long freedAt = System.nanoTime();
                if (!this.settings.quorum()) { // quorum mode has its own waiter lease and wakes by polling
                    this.journal.checkWakeUps(TimeUnit.MILLISECONDS.toNanos(ExplorerSettings.WAKE_LIMIT_MILLIS));
                    this.journal.checkPermitWakeUps(
                            TimeUnit.MILLISECONDS.toNanos(ExplorerSettings.WAKE_LIMIT_MILLIS));
                }
                ExplorerEndChecks endChecks = new ExplorerEndChecks(this, masters, clients, services,
                        random.nextLong());
                endChecks.everyKeyFree(freedAt);
                endChecks.everyPermitFree(freedAt);
                endChecks.closeWithWorkInFlight(this.serviceProxies.get(this.serviceProxies.size() - 1));
                clients.close();
                endChecks.nothingLeft();
            }
            finally {
                this.stopping = true;
                masters.forEach(RedisNode::resume);
                proxies.forEach(FaultProxy::close);
                this.helper.shutdownNow();
            }
        }
        return new ExplorerResult(this.settings.seed(), this.settings.quorum(), this.settings.mixed(),
                Duration.ofNanos(System.nanoTime() - started),
                this.journal.operationCounts(), this.journal.faultCounts(), this.journal.checkCount(),
                this.journal.violations(), this.journal.excerpt(), performed());
    }

    /**
     * A fault attached to an operation (drawn from the worker's seed): the replies of the next few milliseconds on
     * the service's connections are delayed past the command timeout by 5-85 ms, so that the call sent now times out
     * while one sent a little later does not. Only when reply delays are among the run's faults.
     */
    boolean delayRepliesNow(int service, Random random) {
        if (!this.settings.faults().contains("reply-delay")) {
            return false;
        }
        long delay = ExplorerSettings.COMMAND_TIMEOUT.toMillis() + 5 + random.nextInt(80);
        long now = System.nanoTime();
        for (FaultProxy proxy : this.serviceProxies.get(service)) {
            proxy.delayReplies(Duration.ofMillis(3), Duration.ofMillis(delay));
        }
        this.journal.fault("reply-delay attached to an operation", now,
                now + TimeUnit.MILLISECONDS.toNanos(delay + 1000));
        this.journal.log("FAULT service " + service + ": replies of 3 ms delayed by " + delay + " ms (attached)");
        return true;
    }

    /**
     * The {@link ExplorerSettings#LEASE_DELETE} fault, right before a release of {@code key} (an exclusive or fair
     * lock, not in quorum mode): the lock's key deleted in Redis, and the replies of the next few milliseconds on the
     * service's connections delayed past the command timeout, so that the release's first try finds the lease gone and
     * its retry finds the same. False when the run does not have this fault.
     */
    boolean deleteLeaseNow(int service, String key, LockMode mode, Random random) {
        if (!this.settings.faults().contains(ExplorerSettings.LEASE_DELETE) || quorum()) {
            return false;
        }
        String redisKey = "distlock:{" + key + "}:" + (mode == LockMode.FAIR ? "fair:lock" : "lock");
        long delay = ExplorerSettings.COMMAND_TIMEOUT.toMillis() + 5 + random.nextInt(80);
        long now = System.nanoTime();
        this.masters.get(0).call("DEL", redisKey);
        // the DEL ran at some time up to its reply: a paused Redis runs it when it resumes, after calls queued before
        long done = System.nanoTime();
        this.leaseDeletes.put(key, new long[] { now, done });
        for (FaultProxy proxy : this.serviceProxies.get(service)) {
            proxy.delayReplies(Duration.ofMillis(3), Duration.ofMillis(delay));
        }
        this.journal.fault(ExplorerSettings.LEASE_DELETE, now, done + TimeUnit.MILLISECONDS.toNanos(delay + 1000));
        this.journal.log("FAULT service " + service + ": " + redisKey + " deleted, replies of 3 ms delayed by " + delay
                + " ms (attached to its release)");
        return true;
    }

    /**
     * Whether a {@link ExplorerSettings#LEASE_DELETE} fault may have deleted {@code key} between these times: its DEL
     * ran between its sending and its reply, which overlap them (the last one is kept per key, enough for a span that
     * ends now; a Redis paused when the DEL was sent runs it after the calls queued before it, seed
     * -6397832321912477082): the fault deletes the key whoever holds it by then, so a holder
     * of the key in that span may have lost its lease for real, and a release retried then may have lost the evidence
     * of its own first try (the lock's key, and its freed mark entry after 8 later releases); either reports its lease
     * lost, the only right answer it has.
     */
    boolean leaseDeletedBetween(String key, long fromNanos, long toNanos) {
        long[] deleted = this.leaseDeletes.get(key); // sent, and answered
        return deleted != null && deleted[1] - fromNanos >= 0 && toNanos - deleted[0] >= 0;
    }

    /** A service on these ports: a Redis lock service on one, a quorum service on three. */
    LockService service(Clients clients, List<Integer> ports, Duration commandTimeout) {
        return service(clients, ports, commandTimeout, null);
    }

    /** The same, of the previous layout's code when {@code previous} is given (mixed mode). */
    private LockService service(Clients clients, List<Integer> ports, Duration commandTimeout,
            PreviousEngine previous) {
        if (previous != null) {
            List<StringRedisTemplate> templates = ports.stream().map(p -> clients.template(p, commandTimeout)).toList();
            LockService service = ports.size() == 1
                    ? previous.redisService(templates.get(0), ExplorerSettings.WATCHDOG_LEASE,
                            ExplorerSettings.WAITER_LEASE)
                    : previous.quorumService(templates, ExplorerSettings.WATCHDOG_LEASE.dividedBy(10),
                            ExplorerSettings.WATCHDOG_LEASE);
            if (service.getClass().getClassLoader() != previous.loader()) {
                throw new AssertionError("the mixed mode's service " + service.getClass() + " is not the previous "
                        + "layout's: it came from " + service.getClass().getClassLoader());
            }
            clients.register((AutoCloseable) service);
            return service;
        }
        if (ports.size() == 1) {
            return clients.service(ports.get(0), commandTimeout, b -> b.watchdogLease(ExplorerSettings.WATCHDOG_LEASE)
                .waiterLease(ExplorerSettings.WAITER_LEASE));
        }
        List<StringRedisTemplate> templates = new ArrayList<>();
        for (int port : ports) {
            templates.add(clients.template(port, commandTimeout));
        }
        QuorumLockService quorum = QuorumLockService.builder(templates).restartGrace(Duration.ZERO)
            .nodeTimeout(ExplorerSettings.WATCHDOG_LEASE.dividedBy(10))
            .watchdogLease(ExplorerSettings.WATCHDOG_LEASE).build();
        clients.register(quorum);
        return quorum;
    }

    /** The keys of locks and semaphores, for the history excerpt of a violation. */
    static List<String> tracedKeys() {
        List<String> keys = new ArrayList<>(allKeys());
        keys.addAll(List.of(ExplorerPermits.KEYS));
        return keys;
    }

    static List<String> allKeys() {
        return List.of(ExplorerWorker.EXCLUSIVE_KEYS[0], ExplorerWorker.EXCLUSIVE_KEYS[1], ExplorerWorker.RW_KEY,
                ExplorerWorker.FAIR_KEY);
    }

    /** Every section of a key, as its holder saw it. */
    void section(ExplorerWorker.Target target, String owner, long token, long start, long end, boolean valid) {
        this.sections.get(target.key()).add(new Section(owner + "/" + target.mode(), owner, token, start, end, valid));
    }

    /** A permit holder enters the semaphore's resource: true when its token was accepted. */
    boolean enterSemaphore(String key, long fencingToken) {
        return this.semaphoreResources.get(key).enter(fencingToken);
    }

    void permitHold(ExplorerPermits.PermitHold hold) {
        this.permitHolds.get(hold.key).add(hold);
    }

    void write(String key, long fencingToken) {
        this.resources.get(key).write(fencingToken);
    }

    /** A future that must complete within {@code boundMillis} (plus the margin of a loaded machine). */
    void track(CompletableFuture<?> future, long boundMillis, String what) {
        long deadline = System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(boundMillis + ExplorerSettings.MARGIN_MILLIS);
        this.tracked.add(new Object[] { future, deadline, what, boundMillis });
    }

    private void checkTracked() {
        long now = System.nanoTime();
        for (Object[] entry : this.tracked) {
            CompletableFuture<?> future = (CompletableFuture<?>) entry[0];
            if (future.isDone()) {
                this.tracked.remove(entry);
                this.journal.checked();
            }
            else if (now > (Long) entry[1]) {
                this.tracked.remove(entry);
                this.journal.violation("the future of " + entry[2] + " did not complete within its bound of "
                        + entry[3] + " ms + " + ExplorerSettings.MARGIN_MILLIS + " ms margin");
            }
        }
    }

    /** Waits until every tracked future completed or passed its deadline. */
    void waitForTracked() throws InterruptedException {
        while (!this.tracked.isEmpty()) {
            checkTracked();
            Thread.sleep(100);
        }
    }

    /** No two owners both valid over overlapping time (readers may share), and accepted tokens increase. */
    private void checkHistory() {
        for (String key : allKeys()) {
            List<Section> history = new ArrayList<>(this.sections.get(key));
            List<Section> valid = new ArrayList<>();
            for (Section section : history) {
                if (section.validAtEnd()) {
                    valid.add(section);
                }
            }
            valid.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
            for (int i = 0; i < valid.size(); i++) {
                Section first = valid.get(i);
                for (int j = i + 1; j < valid.size() && valid.get(j).startNanos() < first.endNanos(); j++) {
                    Section second = valid.get(j);
                    this.journal.checked();
                    boolean readers = first.client().endsWith("/READ") && second.client().endsWith("/READ");
                    if (!readers && !first.ownerToken().equals(second.ownerToken())) {
                        this.journal.violation("two owners both believed they held " + key + " at once: "
                                + describe(first) + " and " + describe(second));
                    }
                }
            }
            List<String> tokens = HistoryChecker.nonIncreasingTokens(this.resources.get(key).accepted());
            this.journal.checked(history.size());
            tokens.forEach(violation -> this.journal.violation(key + ": " + violation));
        }
    }

    /**
     * In mixed mode, the previous layout's service must have been granted locks: a run in which its every call failed
     * (an engine that cannot link against today's API, say) would otherwise pass with nothing mixed checked.
     */
    private void checkPreviousServiceWorked() {
        if (!this.settings.mixed()) {
            return;
        }
        String prefix = "s" + (this.settings.services() - 1) + "-";
        long granted = this.sections.values().stream().flatMap(List::stream)
            .filter(section -> section.client().startsWith(prefix)).count();
        this.journal.checked();
        if (granted == 0) {
            this.journal.violation("mixed mode: the previous layout's service (" + prefix + "*) was granted no lock in "
                    + "the whole run, so nothing of mixed versions was checked");
        }
    }

    /** The semaphore checks of {@link ExplorerSemaphoreChecks}, outside quorum mode (which takes no permits). */
    private void checkSemaphores() {
        if (this.settings.quorum()) {
            return;
        }
        ExplorerSemaphoreChecks checks = new ExplorerSemaphoreChecks(this.journal, this.settings.seed());
        for (int i = 0; i < ExplorerPermits.KEYS.length; i++) {
            String key = ExplorerPermits.KEYS[i];
            checks.check(key, ExplorerPermits.LIMITS[i], new ArrayList<>(this.permitHolds.get(key)),
                    this.semaphoreResources.get(key).acceptedCount());
        }
    }

    private String describe(Section section) {
        return section.client() + " token " + section.fencingToken() + " from "
                + this.journal.millis(section.startNanos()) + " ms to " + this.journal.millis(section.endNanos())
                + " ms";
    }

    static String stack(Thread thread) {
        return stack(thread.getStackTrace());
    }

    static String stack(Throwable failure) {
        return stack(failure.getStackTrace());
    }

    private static String stack(StackTraceElement[] elements) {
        StringBuilder text = new StringBuilder();
        for (StackTraceElement element : elements) {
            text.append("\n    at ").append(element);
        }
        return text.toString();
    }

    /** The keys in use, with the mode each is taken in for a probe. */
    static Map<String, LockMode> probeModes() {
        return Map.of(ExplorerWorker.EXCLUSIVE_KEYS[0], LockMode.EXCLUSIVE, ExplorerWorker.EXCLUSIVE_KEYS[1],
                LockMode.EXCLUSIVE, ExplorerWorker.RW_KEY, LockMode.WRITE, ExplorerWorker.FAIR_KEY, LockMode.FAIR);
    }

    static LockOptions probeOptions(LockMode mode) {
        return LockOptions.defaults().withMode(mode).withLeaseTime(Duration.ofMillis(500)).withOwner(new Object());
    }

    static Set<String> libraryThreads() {
        Set<String> names = new java.util.TreeSet<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("distlock-") && thread.isAlive()) {
                names.add(thread.getName());
            }
        }
        return names;
    }

    static void releaseQuietly(LockHandle lock) {
        try {
            lock.release();
        }
        catch (RuntimeException ex) {
            // a probe
        }
    }
}
