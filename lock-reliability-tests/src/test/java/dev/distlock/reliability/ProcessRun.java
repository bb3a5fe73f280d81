package dev.distlock.reliability;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * One seeded run of the explorer's process mode: {@link #CLIENTS} client processes ({@link ProcessClientMain}, two
 * worker threads each) contend for the keys of {@link ProcessOps} on one Redis, with a fenced resource on another,
 * while the seed's faults ({@link ProcessFaults}) kill and stop clients and kill (restart empty) and pause Redis. The
 * children may run another build's lock-core ({@code coreClasses}); the checker runs here, over the merged history.
 * On a Redis Cluster ({@link ProcessCluster}) the faults are kills, stops and a master paused past its failover.
 */
final class ProcessRun implements ProcessFaults.Target {

    static final int CLIENTS = 3;

    /** The faults field of a schedule a seeded run recorded, whose operations a replay performs. */
    static final String REPLAY = "process-replay";

    /** The faults field of a seeded run on a Redis Cluster ({@code CLUSTER + "-replay"}: its replay). */
    static final String CLUSTER = "process-cluster";

    /** The restart grace: longer than every lease (the watchdog's 1.5 s, fixed ones up to 2 s). */
    static final Duration GRACE = Duration.ofSeconds(3);

    private final ExplorerSchedule schedule;

    private final String classpath;

    private final Path dir;

    private final ChildJvm[] clients = new ChildJvm[CLIENTS];

    private final int[] generations = new int[CLIENTS];

    private final Map<String, ChildJvm> processes = new LinkedHashMap<>();

    private final List<ProcessHistory.Fault> faults = new CopyOnWriteArrayList<>();

    private RedisNode redis;

    private ProcessCluster cluster;

    /** The lock's Redis as the children take it: a port, or a cluster's {@link ProcessCluster#address()}. */
    private String lockAddress;

    private int resourcePort;

    private long t0;

    private long end;

    /** A run of the given schedule (for a seeded run: {@link #seeded}); children on {@code coreClasses} if not null. */
    ProcessRun(ExplorerSchedule schedule, String coreClasses, Path dir) {
        this.schedule = schedule;
        this.classpath = coreClasses == null ? ChildJvm.testClassPath() : replaceCore(coreClasses);
        this.dir = dir;
    }

    /** The schedule a seed draws: its faults; its operations are drawn by the children and recorded as they go. */
    static ExplorerSchedule seeded(long seed, int seconds) {
        return seeded(seed, seconds, ProcessFaults.KINDS);
    }

    /** The same with only these kinds of faults. */
    static ExplorerSchedule seeded(long seed, int seconds, List<String> kinds) {
        return new ExplorerSchedule(seed, seconds, "process", false, false,
                new ArrayList<>(ProcessFaults.draw(seed, seconds * 1000L, CLIENTS, kinds)));
    }

    /** The schedule of a seed on a Redis Cluster, drawing these kinds of {@link ProcessFaults#CLUSTER_KINDS}. */
    static ExplorerSchedule seededOnCluster(long seed, int seconds, List<String> kinds) {
        return new ExplorerSchedule(seed, seconds, CLUSTER, false, false,
                new ArrayList<>(ProcessFaults.draw(seed, seconds * 1000L, CLIENTS, kinds)));
    }

    private static String replaceCore(String coreClasses) {
        List<String> entries = new ArrayList<>();
        for (String entry : ChildJvm.testClassPath().split(File.pathSeparator)) {
            entries.add(entry.replace('\\', '/').endsWith("lock-core/target/classes") ? coreClasses : entry);
        }
        if (!entries.contains(coreClasses)) {
            throw new IllegalStateException("no lock-core/target/classes on the class path to replace: " + entries);
        }
        return String.join(File.pathSeparator, entries);
    }

    /** Whether this run replays recorded operations (else the children draw them from the seed). */
    private boolean replay() {
        return this.schedule.faults().endsWith("replay");
    }

    private boolean onCluster() {
        return this.schedule.faults().startsWith(CLUSTER);
    }

    ProcessResult run() throws Exception {
        Files.createDirectories(this.dir);
        Path ops = this.dir.resolve("ops-" + this.schedule.seed() + ".txt");
        Files.writeString(ops, this.schedule.text());
        long startedAt = System.nanoTime();
        List<ExplorerSchedule.Fault> scheduled = this.schedule.scheduledFaults();
        long lastItem = this.schedule.items().stream().mapToLong(ExplorerSchedule.Item::atMillis).max().orElse(0);
        long millis = replay() ? lastItem + 3000 : this.schedule.seconds() * 1000L;
        List<String> violations = new ArrayList<>();
        int ran;
        try (RedisServers servers = RedisServers.create()) {
            if (onCluster()) {
                this.cluster = new ProcessCluster(servers);
                this.lockAddress = this.cluster.address();
            }
            else {
                this.redis = servers.start();
                this.redis.call("SET", "distlock:restart-grace", "1"); // a fresh server, no grace (safety-restarts)
                this.lockAddress = Integer.toString(this.redis.port());
            }
            this.resourcePort = servers.start().port();
            Path clock = this.dir.resolve("clock-" + this.schedule.seed() + ".txt");
            Files.deleteIfExists(clock);
            for (int i = 0; i < CLIENTS; i++) {
                restartClient(i);
            }
            for (int i = 0; i < CLIENTS; i++) {
                this.clients[i].awaitLine("READY", Duration.ofSeconds(90));
            }
            this.t0 = System.nanoTime() + 100_000_000L;
            this.end = this.t0 + millis * 1_000_000;
            Path written = this.dir.resolve("clock-" + this.schedule.seed() + ".tmp");
            Files.writeString(written, this.t0 + " " + this.end);
            Files.move(written, clock, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            ran = ProcessFaults.perform(scheduled, this.t0, this.end, this);
            ProcessFaults.sleepUntil(this.end);
            for (ChildJvm child : this.processes.values()) {
                try {
                    child.awaitExit(Duration.ofSeconds(20));
                }
                catch (AssertionError ex) {
                    violations.add("a client process still busy 20 s after the run's end: " + ex.getMessage());
                }
            }
            violations.addAll(probe());
        }
        finally {
            for (ChildJvm child : this.processes.values()) {
                child.close();
            }
        }
        ProcessHistory history = new ProcessHistory();
        List<ExplorerSchedule.Item> items = new ArrayList<>(scheduled);
        this.processes.forEach((name, child) -> {
            history.addProcess(name, child.output());
            items.addAll(opsOf(name.substring(0, name.indexOf('g')), child.output()));
            boolean killed = this.faults.stream().anyMatch(f -> f.kind().equals("kill") && f.target().equals(name));
            if (!killed && !child.output().contains("READY")) {
                violations.add(name + " died before it was ready: " + child.output());
            }
            if (onCluster() && child.output().contains("READY")
                    && child.output().stream().noneMatch(l -> l.contains(ProcessCluster.ACKNOWLEDGED))) {
                violations.add(name + " died: it ran without replica acknowledgements (no '"
                        + ProcessCluster.ACKNOWLEDGED + "' in its log), which the mode's checks assume");
            }
            child.output().stream().filter(l -> l.startsWith("ERROR") || l.startsWith("Exception"))
                .forEach(l -> violations.add(name + " died: " + l));
        });
        this.faults.forEach(history::addFault);
        saveOutputs();
        ProcessChecks checks = new ProcessChecks(history, GRACE.toNanos(), this::time);
        violations.addAll(0, checks.violations());
        items.sort(Comparator.comparingLong(ExplorerSchedule.Item::atMillis));
        Map<String, Integer> byKind = new TreeMap<>();
        this.faults.forEach(f -> byKind.merge(f.kind(), 1, Integer::sum));
        ExplorerSchedule performed = new ExplorerSchedule(this.schedule.seed(), this.schedule.seconds(),
                onCluster() ? CLUSTER + "-replay" : REPLAY, false, false, items);
        return new ProcessResult(this.schedule.seed(), violations, performed, history.holds.size(),
                history.refusals.size(), byKind, ran, checks.checks(), checks.wakeUpsJudged(), Duration.ofNanos(System.nanoTime() - startedAt));
    }

    /** Every child's report lines, and the faults, of the last run of a seed ({@code process-<seed>-*.txt}). */
    private void saveOutputs() throws java.io.IOException {
        for (Map.Entry<String, ChildJvm> child : this.processes.entrySet()) {
            Files.write(this.dir.resolve("process-" + this.schedule.seed() + "-" + child.getKey() + ".txt"),
                    child.getValue().output());
        }
        Files.write(this.dir.resolve("process-" + this.schedule.seed() + "-faults.txt"),
                this.faults.stream().map(f -> f.kind() + " " + f.target() + " " + time(f.from()) + " " + time(f.to()))
                    .toList());
    }

    /**
     * Every key can be taken again, and every permit of the semaphore, once the run is over: by a process of the
     * children's build (another build may write another layout).
     */
    private List<String> probe() throws Exception {
        List<String> violations = new ArrayList<>();
        try (ChildJvm probe = ChildJvm.startWith(this.classpath, ProcessClientMain.class,
                this.lockAddress, Integer.toString(this.resourcePort), "probe", "0", "-", grace(), "-")) {
            probe.awaitExit(Duration.ofSeconds(90));
            for (String key : ProcessOps.KEYS) {
                String line = probe.output().stream().filter(l -> l.startsWith("P " + key + " ")).findFirst()
                    .orElse("P " + key + " no answer: " + probe.output());
                if (!line.endsWith(" ok")) {
                    violations.add(key + " could not be taken (all of it) 15 s after the run: "
                            + line.substring(3 + key.length()) + " (after every handle was released)");
                }
            }
        }
        return violations;
    }

    private static List<ExplorerSchedule.Item> opsOf(String client, List<String> lines) {
        List<ExplorerSchedule.Item> ops = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f.length == 5 && f[0].equals("O")) {
                ops.add(new ExplorerSchedule.Op(Integer.parseInt(client.substring(1)), Integer.parseInt(f[1]),
                        Long.parseLong(f[2]), Long.parseUnsignedLong(f[3], 16), f[4]));
            }
        }
        return ops;
    }

    String time(long nanos) {
        return (nanos - this.t0) / 1_000_000 + " ms";
    }

    @Override
    public synchronized ChildJvm client(int index) {
        return this.clients[index];
    }

    @Override
    public synchronized String name(int index) {
        return "s" + index + "g" + this.generations[index];
    }

    @Override
    public synchronized void restartClient(int index) throws Exception {
        if (this.clients[index] != null) {
            this.generations[index]++;
        }
        long seed = this.schedule.seed() * 1_000_003L + index * 101L + this.generations[index];
        Path ops = this.dir.resolve("ops-" + this.schedule.seed() + ".txt");
        ChildJvm child = ChildJvm.startWith(this.classpath, ProcessClientMain.class,
                this.lockAddress, Integer.toString(this.resourcePort), "s" + index,
                Long.toString(seed), this.dir.resolve("clock-" + this.schedule.seed() + ".txt").toAbsolutePath()
                    .toString(), grace(),
                replay() ? ops.toString() : "-");
        this.clients[index] = child;
        this.processes.put(name(index), child);
    }

    /** The children's restart grace: none on a Cluster, whose nodes are never restarted here. */
    private String grace() {
        return onCluster() ? "0" : Long.toString(GRACE.toMillis());
    }

    @Override
    public RedisNode redis() {
        return this.redis;
    }

    @Override
    public ProcessHistory.Fault failover(String key, long pastMillis) throws InterruptedException {
        return this.cluster.failover(key, pastMillis);
    }

    @Override
    public void record(ProcessHistory.Fault fault) {
        this.faults.add(fault);
    }
}
