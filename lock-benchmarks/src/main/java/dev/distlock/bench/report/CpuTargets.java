package dev.distlock.bench.report;

import java.util.Locale;
import java.util.Map;

import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.Summary;
import dev.distlock.bench.scenarios.RenewalAtScaleScenario;
import dev.distlock.bench.scenarios.ScenarioReport;

/**
 * The current targets, as issue 50 restated them, assessed from the same run (on a jemalloc build): the lock cycle
 * against the fenced floor (the cheapest lock that hands out a fencing token), semaphores and renewal against
 * Redisson. Each verdict is read from the medians, and says when the iterations' ranges reach across the threshold.
 */
final class CpuTargets {

    private final Map<String, ScenarioReport> reports;

    private final StringBuilder out = new StringBuilder();

    CpuTargets(Map<String, ScenarioReport> reports) {
        this.reports = reports;
    }

    String render() {
        // the lock cycle against the cheapest lock with a fencing token (issue 50 restates issue 30's raw-floor targets,
        // which the fenced floor itself misses)
        cpu("2", Implementation.DISTLOCK, Implementation.FENCED, 1.35,
                "16 threads on their own keys: Redis CPU per cycle ≤ 1.35× the fenced floor's");
        cpu("7", Implementation.DISTLOCK_ASYNC, Implementation.FENCED_ASYNC, 1.35,
                "non-blocking, one thread, distinct keys: Redis CPU per cycle ≤ 1.35× the non-blocking fenced floor's");
        throughput("1", Implementation.DISTLOCK, Implementation.FENCED, 0.9,
                "blocking, one thread: cycles/s ≥ 0.9× the fenced floor's");
        throughput("2", Implementation.DISTLOCK, Implementation.FENCED, 0.9,
                "blocking, 16 threads on their own keys: cycles/s ≥ 0.9× the fenced floor's");
        throughput("7", Implementation.DISTLOCK_ASYNC, Implementation.FENCED_ASYNC, 0.9,
                "non-blocking, one thread: cycles/s ≥ 0.9× the non-blocking fenced floor's (same in-flight count)");
        throughput("3", Implementation.DISTLOCK, Implementation.RAW, 2.0, "blocking, hot key: ≥ 2× the raw floor");
        p99("3", "blocking, hot key: p99 cycle below RedisLockRegistry's");
        // against the peer where distlock was behind one (issue 50)
        cpu("11", Implementation.DISTLOCK, Implementation.REDISSON, 1.0,
                "semaphore of 5 permits, 16 threads: Redis CPU per permit cycle ≤ Redisson's");
        renewal();
        reference("7", Implementation.DISTLOCK_ASYNC, Implementation.FENCED_ASYNC, Implementation.RAW_ASYNC,
                "non-blocking, one thread");
        reference("2", Implementation.DISTLOCK, Implementation.FENCED, Implementation.RAW,
                "16 threads on their own keys");
        return this.out.toString();
    }

    private Measurement measurement(String scenario, Implementation implementation) {
        ScenarioReport report = this.reports.get(scenario);
        return (report == null) ? null : report.measurements().get(implementation);
    }

    private void cpu(String scenario, Implementation subject, Implementation floor, double limit, String label) {
        Measurement d = measurement(scenario, subject);
        Measurement f = measurement(scenario, floor);
        if (d == null || f == null) {
            line(label, "not run");
            return;
        }
        Summary dr = d.redisCpuMicrosPerCycleByIteration();
        Summary fr = f.redisCpuMicrosPerCycleByIteration();
        double ratio = d.redisCpuMicrosPerCycle() / f.redisCpuMicrosPerCycle();
        double low = dr.min() / fr.max();
        double high = dr.max() / fr.min();
        line(label, verdict(ratio <= limit, low <= limit && high > limit) + String.format(Locale.ROOT,
                ": %s vs %s µs = %s (iterations %s–%s)", Fmt.decimal(d.redisCpuMicrosPerCycle()),
                Fmt.decimal(f.redisCpuMicrosPerCycle()), Fmt.ratio(ratio, limit), Fmt.ratio(low), Fmt.ratio(high)));
    }

    private void throughput(String scenario, Implementation subject, Implementation other, double target,
            String label) {
        Measurement d = measurement(scenario, subject);
        Measurement o = measurement(scenario, other);
        if (d == null || o == null) {
            line(label, "not run");
            return;
        }
        Summary ds = d.cyclesPerSecond();
        Summary os = o.cyclesPerSecond();
        double ratio = ds.median() / os.median();
        double low = ds.min() / os.max();
        double high = ds.max() / os.min();
        line(label, verdict(ratio >= target, low < target && high >= target) + String.format(Locale.ROOT,
                ": %s vs %s cycles/s = %s (iterations %s–%s)", Fmt.count(ds.median()), Fmt.count(os.median()),
                Fmt.ratio(ratio, target), Fmt.ratio(low), Fmt.ratio(high)));
    }

    /**
     * No target: what the cheapest lock with a fencing token (the fenced floor) costs Redis beside the raw floor, and
     * distlock beside it: what a fencing token alone costs beside what distlock's other guarantees cost.
     */
    private void reference(String scenario, Implementation subject, Implementation fenced, Implementation floor,
            String label) {
        Measurement d = measurement(scenario, subject);
        Measurement r = measurement(scenario, fenced);
        Measurement f = measurement(scenario, floor);
        String text = "(reference, no target) " + label + ": Redis CPU per cycle of the fenced floor (the cheapest lock "
                + "with a fencing token) ÷ the raw floor's, and distlock's ÷ the fenced floor's";
        if (d == null || r == null || f == null) {
            line(text, "not run");
            return;
        }
        line(text, String.format(Locale.ROOT, "%s vs %s µs = %s; distlock %s µs = %s of the fenced floor's",
                Fmt.decimal(r.redisCpuMicrosPerCycle()), Fmt.decimal(f.redisCpuMicrosPerCycle()), cpuRatio(r, f),
                Fmt.decimal(d.redisCpuMicrosPerCycle()), cpuRatio(d, r)));
    }

    /** Redis CPU per cycle of {@code a} ÷ {@code b}'s, with the iterations' range. */
    private static String cpuRatio(Measurement a, Measurement b) {
        Summary as = a.redisCpuMicrosPerCycleByIteration();
        Summary bs = b.redisCpuMicrosPerCycleByIteration();
        return Fmt.ratio(a.redisCpuMicrosPerCycle() / b.redisCpuMicrosPerCycle()) + " (iterations "
                + Fmt.ratio(as.min() / bs.max()) + "–" + Fmt.ratio(as.max() / bs.min()) + ")";
    }

    private void p99(String scenario, String label) {
        Measurement d = measurement(scenario, Implementation.DISTLOCK);
        Measurement o = measurement(scenario, Implementation.SPRING_INTEGRATION);
        if (d == null || o == null) {
            line(label, "not run");
            return;
        }
        Summary ds = d.cycleLatencyMicros(99);
        Summary os = o.cycleLatencyMicros(99);
        line(label, verdict(ds.median() < os.median(), ds.max() >= os.min() && ds.min() < os.max()) + ": "
                + Fmt.microsRange(ds) + " vs " + Fmt.microsRange(os));
    }

    private void renewal() {
        ScenarioReport report = this.reports.get("9");
        if (report == null || !(report.scenario() instanceof RenewalAtScaleScenario scale)) {
            line("renewal at 10,000 held locks: Redis CPU ≤ Redisson's", "not run");
            return;
        }
        String label = String.format(Locale.ROOT, "renewal at %,d held locks: Redis CPU ≤ Redisson's",
                scale.heldLocks());
        Summary d = scale.netMicrosPerRenewal(Implementation.DISTLOCK);
        Summary r = scale.netMicrosPerRenewal(Implementation.REDISSON);
        if (d == null || r == null || d.isEmpty() || r.isEmpty()) {
            line(label, "not run");
            return;
        }
        boolean alive = scale.keptAll(Implementation.DISTLOCK);
        line(label, verdict(d.median() <= r.median() && alive, d.max() > r.min() && d.min() <= r.max())
                + String.format(Locale.ROOT, ": %s vs %s µs per renewed lock, net of idle = %s (slices %s–%s vs %s–%s)%s",
                        Fmt.decimal(d.median()), Fmt.decimal(r.median()), Fmt.ratio(d.median() / r.median()),
                        Fmt.decimal(d.min()), Fmt.decimal(d.max()), Fmt.decimal(r.min()), Fmt.decimal(r.max()),
                        alive ? "" : "; distlock lost locks"));
    }

    private static String verdict(boolean met, boolean unclear) {
        return (met ? "**met**" : "**missed**") + (unclear ? " (iteration ranges straddle the target)" : "");
    }

    private void line(String label, String text) {
        this.out.append("- ").append(label).append(" — ").append(text).append('\n');
    }
}
