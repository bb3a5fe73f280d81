package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.harness.Summary;
import dev.distlock.bench.harness.WorkerPool;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.redis.ServerUsage;
import dev.distlock.bench.report.BarChart;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;

/**
 * Scenario 9: 10,000 locks (or {@code --held-locks}) held by one client while its watchdog renews them, distlock
 * beside Redisson, one after the other: Redis CPU per renewed lock and per held lock per second, over measured slices
 * of whole renewal periods, net of the server's idle CPU measured with the same client open and no lock held; and how
 * long a renewal round takes, seen from Redis.
 */
public final class RenewalAtScaleScenario implements Scenario {

    /**
     * The same for both: renewal every third of it (at 10,000 locks, 5,000 renewals a second), so a period's
     * renewals must finish within the lease less a period even on a loaded machine.
     */
    static final Duration LEASE = Duration.ofSeconds(6);

    private static final Duration IDLE_WINDOW = Duration.ofSeconds(4);

    private static final Duration BOUND = Duration.ofMinutes(3);

    /** How often the round phase reads Redis's renewal count. */
    private static final long POLL_MILLIS = 5;

    /** A pause in renewals this long ends a round (a period is 2,000 ms). */
    private static final long ROUND_GAP_MILLIS = 100;

    /** Locks held in the last (or coming) run: {@code --held-locks}. */
    private int locks = 10_000;

    private final Map<Implementation, Result> results = new LinkedHashMap<>();

    @Override
    public String id() {
        return "9";
    }

    @Override
    public String title() {
        return String.format(Locale.ROOT, "%,d locks held: Redis CPU of watchdog renewal, distlock beside Redisson",
                this.locks);
    }

    @Override
    public String description() {
        return """
                One thread of one client acquires %,d keys and holds them while the client's watchdog renews them. \
                The lease is %d s for both, so that renewal is frequent enough (%,d lock renewals a second) for \
                Redis's own idle work to stay small beside it, yet leaves time for a period's renewal calls: \
                distlock `watchdogLease` and Redisson \
                `lockWatchdogTimeout`, each renewing every third of it (distlock's default `renewalInterval`, \
                Redisson's fixed lease/3) in batches of 100 locks per script call (distlock's batch, Redisson's \
                default `lockWatchdogBatchSize`), so both do the same work: every lock renewed once a period. \
                Before acquiring, a %d s window with the client open and nothing held measures Redis's idle CPU; \
                after one renewal period and 0.5 s, measured slices of whole renewal periods (as many as the run's \
                iterations) each note Redis CPU (INFO cpu) and the renewals Redis ran (the `PEXPIRE` calls inside \
                the renewal scripts, one per renewed lock, from INFO commandstats). *µs per renewed lock* is the \
                slice's CPU less the idle rate, over its renewals; *µs/s per held lock* is that CPU per second per \
                lock held. Then, for three periods, Redis's renewal count is read every %d ms: *renewal round* is \
                the time from the last read before a period's renewals start to the first read after they stop \
                (an upper bound, by up to two reads), against the renewal period. Spring Integration renews each \
                lock on its own (scenario 4) and is left out; the raw floor has no watchdog. The implementations \
                run one after the other, never together.""".formatted(this.locks, LEASE.toSeconds(),
                this.locks / interval().toSeconds(), IDLE_WINDOW.toSeconds(), POLL_MILLIS);
    }

    @Override
    public boolean covers(Implementation implementation) {
        return implementation == Implementation.DISTLOCK || implementation == Implementation.REDISSON;
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        Duration each = IDLE_WINDOW.plus(slice(config).multipliedBy(config.iterations()))
            .plus(interval().multipliedBy(4))
            .plusSeconds(12L * Math.max(1, config.heldLocks() / 10_000));
        return each.multipliedBy(implementations.size());
    }

    /** A measured slice: two whole renewal periods. */
    private static Duration slice(RunConfig config) {
        return interval().multipliedBy(2);
    }

    private static Duration interval() {
        return LEASE.dividedBy(3);
    }

    /**
     * Redis CPU µs per renewed lock, net of idle, over the measured slices of the last run (null where that
     * implementation did not run): the figure the renewal target compares.
     */
    public Summary netMicrosPerRenewal(Implementation implementation) {
        Result result = this.results.get(implementation);
        return (result == null) ? null : result.netMicrosPerRenewal();
    }

    /** The locks the last run held ({@code --held-locks}). */
    public int heldLocks() {
        return this.locks;
    }

    /** Whether every lock was still alive at the end of the last run's slices for {@code implementation}. */
    public boolean keptAll(Implementation implementation) {
        Result result = this.results.get(implementation);
        return result != null && result.keysAtEnd() >= this.locks;
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        StringBuilder notes = new StringBuilder();
        this.locks = context.config().heldLocks();
        for (Implementation implementation : implementations) {
            context.flush();
            context.progress("Scenario 9, %s: holding %,d locks", implementation.label(), this.locks);
            ClientSettings settings = new ClientSettings(context.port(), LEASE, context.config().maxWait());
            try (LockClient client = implementation.open(settings);
                    WorkerPool holder = new WorkerPool(1, "bench-s9")) {
                Result result = hold(client, holder, context);
                this.results.put(implementation, result);
                context.progress("  %-20s %.2f µs per renewed lock (net of idle), renewal round %.0f ms, %d/%d keys "
                        + "alive, %d left after release", implementation.label(),
                        result.netMicrosPerRenewal().median(), result.roundMillis().median(), result.keysAtEnd,
                        this.locks, result.keysAfterRelease);
                notes.append(Notes.diagnostics(implementation, client));
            }
        }
        return new ScenarioReport(this, render() + "\n" + notes, Map.of(), Map.of(), chart());
    }

    private Result hold(LockClient client, WorkerPool holder, BenchContext context) throws Exception {
        RedisProbe probe = context.probe();
        RedisProbe.Window idle = probe.start();
        long idleStart = System.nanoTime();
        Thread.sleep(IDLE_WINDOW.toMillis());
        double idleMicrosPerSecond = idle.finish().cpuMicros() * 1e9 / (System.nanoTime() - idleStart);

        List<LockClient.Held> held = holder.runOnAll(index -> acquireAll(client, this.locks), BOUND).get(0);
        List<Slice> slices = new ArrayList<>();
        long keysAtEnd;
        Summary rounds;
        try {
            Thread.sleep(interval().plusMillis(500).toMillis());
            for (int i = 0; i < context.config().iterations(); i++) {
                RedisProbe.Window window = probe.start();
                long start = System.nanoTime();
                Thread.sleep(slice(context.config()).toMillis());
                ServerUsage usage = window.finish();
                slices.add(new Slice(usage, System.nanoTime() - start));
            }
            keysAtEnd = probe.keyCount();
            rounds = roundMillis(probe, this.locks);
        }
        finally {
            holder.runOnAll(index -> WatchdogScenario.releaseAll(held), BOUND);
        }
        Thread.sleep(1_000);
        return new Result(this.locks, idleMicrosPerSecond, List.copyOf(slices), keysAtEnd, probe.keyCount(), rounds);
    }

    private static List<LockClient.Held> acquireAll(LockClient client, int locks) throws Exception {
        List<LockClient.Held> held = new ArrayList<>(locks);
        long deadline = System.nanoTime() + BOUND.toNanos();
        for (int i = 0; i < locks && System.nanoTime() - deadline < 0; i++) {
            held.add(client.acquire("s9:lock:" + i));
        }
        return held;
    }

    /**
     * How long each renewal round took, in ms, seen from Redis over three periods: a round runs from the last read
     * before the renewal count grew to the first read after it stopped growing for {@value #ROUND_GAP_MILLIS} ms (an
     * upper bound, by up to two reads); a round under way when the reads began is left out, and so is a burst that
     * renewed fewer than half the locks (a client's own housekeeping key, such as distlock's instance record).
     */
    private static Summary roundMillis(RedisProbe probe, int locks) throws InterruptedException {
        List<Double> rounds = new ArrayList<>();
        long end = System.nanoTime() + interval().multipliedBy(3).toNanos();
        long lastCount = renewalsSoFar(probe);
        long lastRead = System.nanoTime();
        long roundStart = -1;
        long countAtStart = 0;
        long lastGrowth = lastRead;
        boolean quietSeen = false;
        while (System.nanoTime() - end < 0) {
            Thread.sleep(POLL_MILLIS);
            long count = renewalsSoFar(probe);
            long now = System.nanoTime();
            if (count > lastCount) {
                if (roundStart < 0 && quietSeen) {
                    roundStart = lastRead;
                    countAtStart = lastCount;
                }
                lastGrowth = now;
            }
            else if (now - lastGrowth > ROUND_GAP_MILLIS * 1_000_000) {
                if (roundStart >= 0 && count - countAtStart >= locks / 2) {
                    rounds.add((lastGrowth - roundStart) / 1e6);
                }
                roundStart = -1;
                quietSeen = true;
            }
            lastCount = count;
            lastRead = now;
        }
        return Summary.of(rounds.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The renewal scripts' expiry calls so far: one per renewed lock. */
    private static long renewalsSoFar(RedisProbe probe) {
        return renewals(probe.callsSoFar());
    }

    /** The expiry calls ({@code PEXPIRE}, {@code PEXPIREAT}) among {@code calls}: one per renewed lock. */
    static long renewals(Map<String, Long> calls) {
        return calls.entrySet()
            .stream()
            .filter(entry -> entry.getKey().startsWith("pexpire"))
            .mapToLong(Map.Entry::getValue)
            .sum();
    }

    /** One measured slice: what Redis did and how long it lasted. */
    record Slice(ServerUsage server, long nanos) {

        /** Locks renewed in the slice: the PEXPIRE (or PEXPIREAT) calls the renewal scripts made. */
        long renewals() {
            return RenewalAtScaleScenario.renewals(this.server.calls());
        }

        double seconds() {
            return this.nanos / 1e9;
        }
    }

    /**
     * What holding {@code locks} locks cost one implementation.
     *
     * @param locks the locks held
     * @param idleMicrosPerSecond Redis CPU per second with the client open and nothing held
     * @param keysAtEnd keys in Redis after the last slice (all locks alive if renewal kept up)
     * @param keysAfterRelease keys left one second after every lock was released
     * @param roundMillis how long each renewal round took, seen from Redis
     */
    record Result(int locks, double idleMicrosPerSecond, List<Slice> slices, long keysAtEnd, long keysAfterRelease,
            Summary roundMillis) {

        private double netMicros(Slice slice) {
            return Math.max(0, slice.server().cpuMicros() - this.idleMicrosPerSecond * slice.seconds());
        }

        /** Redis CPU per renewed lock, less the idle rate, slice by slice. */
        Summary netMicrosPerRenewal() {
            return Summary.of(this.slices.stream()
                .mapToDouble(slice -> (slice.renewals() == 0) ? Double.NaN : netMicros(slice) / slice.renewals())
                .toArray());
        }

        /** The same without taking the idle rate off. */
        Summary grossMicrosPerRenewal() {
            return Summary.of(this.slices.stream()
                .mapToDouble(slice -> (slice.renewals() == 0) ? Double.NaN
                        : (double) slice.server().cpuMicros() / slice.renewals())
                .toArray());
        }

        /** Redis CPU per second per held lock, less the idle rate: what holding a lock costs Redis. */
        Summary netMicrosPerSecondPerLock() {
            return Summary.of(this.slices.stream()
                .mapToDouble(slice -> netMicros(slice) / slice.seconds() / this.locks)
                .toArray());
        }

        /** Renewals per held lock per second (0.5 when every lock is renewed once a period of 2 s). */
        Summary renewalsPerLockPerSecond() {
            return Summary.of(this.slices.stream()
                .mapToDouble(slice -> slice.renewals() / slice.seconds() / this.locks)
                .toArray());
        }

        /** Script requests per 100 held locks per renewal period. */
        Summary requestsPerHundredPerPeriod() {
            double periods = interval().toNanos();
            return Summary.of(this.slices.stream()
                .mapToDouble(slice -> slice.server().scriptRequests() / (slice.nanos() / periods)
                        / (this.locks / 100.0))
                .toArray());
        }

        /** Commands per renewed lock, including those inside scripts. */
        double commandsPerRenewal() {
            long calls = this.slices.stream().mapToLong(slice -> slice.server().totalCalls()).sum();
            long renewals = this.slices.stream().mapToLong(Slice::renewals).sum();
            return (renewals == 0) ? Double.NaN : (double) calls / renewals;
        }
    }

    private String render() {
        Result distlock = this.results.get(Implementation.DISTLOCK);
        Table table = new Table("implementation", "keys alive at end", "renewals per lock per second (" + Fmt.decimal(1e9 / interval().toNanos()) + " expected)",
                "renewal requests per 100 locks per period", "cmds per renewal (incl. in scripts)",
                "idle Redis CPU", "Redis CPU µs per renewed lock, net (min–max)", "same, gross",
                "Redis CPU µs/s per held lock, net (min–max)", "distlock ÷ this: Redis CPU per renewed lock",
                "renewal round ms, median (min–max), period " + interval().toMillis() + " ms",
                "keys left 1 s after release");
        this.results.forEach((implementation, r) -> {
            String ratio = (distlock == null) ? Fmt.NONE
                    : Fmt.ratio(distlock.netMicrosPerRenewal().median() / r.netMicrosPerRenewal().median());
            table.row(implementation.label(), r.keysAtEnd() + "/" + r.locks(),
                    Fmt.decimal(r.renewalsPerLockPerSecond().median()),
                    Fmt.decimal(r.requestsPerHundredPerPeriod().median()), Fmt.decimal(r.commandsPerRenewal()),
                    String.format(Locale.ROOT, "%.1f ms/s", r.idleMicrosPerSecond() / 1000), range(r.netMicrosPerRenewal()),
                    Fmt.decimal(r.grossMicrosPerRenewal().median()), range(r.netMicrosPerSecondPerLock()), ratio,
                    range(r.roundMillis()), Long.toString(r.keysAfterRelease()));
        });
        return table.render();
    }

    private static String range(Summary summary) {
        return summary.isEmpty() ? Fmt.NONE
                : Fmt.decimal(summary.median()) + " (" + Fmt.decimal(summary.min()) + "–" + Fmt.decimal(summary.max())
                        + ")";
    }

    private List<BarChart.Panel> chart() {
        if (this.results.isEmpty()) {
            return List.of();
        }
        List<BarChart.Bar> perRenewal = new ArrayList<>();
        List<BarChart.Bar> perLock = new ArrayList<>();
        this.results.forEach((implementation, r) -> {
            perRenewal.add(ScenarioReport.bar(implementation.label(), r.netMicrosPerRenewal()));
            perLock.add(ScenarioReport.bar(implementation.label(), r.netMicrosPerSecondPerLock()));
        });
        return List.of(new BarChart.Panel("Redis CPU µs per renewed lock", "net of idle; whisker: min–max of the "
                + "slices; lower is better", perRenewal),
                new BarChart.Panel("Redis CPU µs/s per held lock", String.format(Locale.ROOT, "net of idle, %,d locks "
                        + "held; lower is better", this.locks), perLock));
    }
}
