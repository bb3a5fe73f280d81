package dev.distlock.bench.scenarios;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

import dev.distlock.bench.clients.LockType;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.harness.Summary;
import dev.distlock.bench.redis.ServerUsage;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;

/**
 * Scenario 10's tables: Redis CPU per cycle per lock type on one server and per Cluster shard, and the shards a rate
 * of cycles needs.
 *
 * @param shards per lock type, each measured Cluster iteration's usage per master
 */
record Capacity(Map<LockType, Measurement> single, Map<LockType, Measurement> cluster,
        Map<LockType, List<ServerUsage[]>> shards) {

    /** The rates the shard table answers for. */
    static final long[] RATES = { 10_000, 50_000, 100_000, 500_000, 1_000_000 };

    /** The share of one core a shard's Redis main thread is planned to use at most. */
    static final double PLANNED_BUSY = 0.5;

    String render(int inFlight) {
        Table table = new Table("lock type", "one server: cycles/s (min–max)", "busy cores: Redis / JVM",
                "Redis CPU µs/cycle (min–max)", "cycles/s one Redis core carries",
                CapacityScenario.MASTERS + "-master Cluster: cycles/s (min–max)", "busy cores: all masters / JVM",
                "Redis CPU µs/cycle, all shards (min–max)", "per shard µs/cycle", "Cluster per shard ÷ one server");
        for (Map.Entry<LockType, Measurement> entry : this.single.entrySet()) {
            LockType type = entry.getKey();
            Measurement one = entry.getValue();
            Measurement many = this.cluster.get(type);
            double[] perShard = perShardMicros(type);
            String shardCells = Fmt.NONE;
            String shardRatio = Fmt.NONE;
            if (perShard.length > 0) {
                StringJoiner joiner = new StringJoiner(" / ");
                double worst = 0;
                for (double micros : perShard) {
                    joiner.add(Fmt.decimal(micros));
                    worst = Math.max(worst, Math.abs(micros / one.redisCpuMicrosPerCycle() - 1));
                }
                shardCells = joiner.toString();
                shardRatio = Fmt.ratio(clusterMicros(type) / one.redisCpuMicrosPerCycle())
                        + String.format(Locale.ROOT, " (shards within ±%.0f%%)", worst * 100);
            }
            table.row(type.label(), Fmt.countRange(one.cyclesPerSecond()), busy(one),
                    range(one.redisCpuMicrosPerCycleByIteration()), Fmt.count(1e6 / one.redisCpuMicrosPerCycle()),
                    (many == null) ? Fmt.NONE : Fmt.countRange(many.cyclesPerSecond()),
                    (many == null) ? Fmt.NONE : busy(many),
                    (many == null) ? Fmt.NONE : range(many.redisCpuMicrosPerCycleByIteration()), shardCells,
                    shardRatio);
        }
        StringBuilder out = new StringBuilder(table.render());
        out.append("\nOne server: 1 thread, ").append(inFlight).append(" cycles in flight; Cluster: 1 thread, ")
            .append(inFlight * CapacityScenario.MASTERS)
            .append(" in flight. µs/cycle figures are totals over the measured iterations per completed cycle, the "
                    + "ranges those of single iterations.\n\n");
        out.append(shardsNeeded());
        return out.toString();
    }

    /**
     * The table the docs quote: for each lock type, shards needed for each rate, from the dearer of the one-server and
     * the per-shard Redis CPU per cycle, planning each shard's main thread at most {@link #PLANNED_BUSY} busy.
     */
    String shardsNeeded() {
        StringBuilder header = new StringBuilder();
        String[] columns = new String[RATES.length + 2];
        columns[0] = "lock type";
        columns[1] = "Redis CPU µs/cycle (planning figure)";
        for (int i = 0; i < RATES.length; i++) {
            columns[i + 2] = Fmt.count(RATES[i]) + " cycles/s";
        }
        Table table = new Table(columns);
        for (Map.Entry<LockType, Measurement> entry : this.single.entrySet()) {
            double micros = planningMicros(entry.getKey());
            String[] cells = new String[columns.length];
            cells[0] = entry.getKey().label();
            cells[1] = Fmt.decimal(micros);
            for (int i = 0; i < RATES.length; i++) {
                long shards = shards(RATES[i], micros);
                cells[i + 2] = shards + (shards == 1 ? " shard" : " shards");
            }
            table.row(cells);
        }
        header.append(String.format(Locale.ROOT, "**N cycles/s need K shards** (Redis Cluster masters, or one "
                + "server for K = 1), planning each shard's Redis main thread at most %.0f%% busy: K = ⌈N × µs/cycle ÷ "
                + "(%.0f%% × 10⁶ µs)⌉, from the dearer of the one-server and per-shard figures above. Keys must "
                + "spread over the slots (distinct keys do); one hot key stays on one shard.%n%n", PLANNED_BUSY * 100,
                PLANNED_BUSY * 100));
        return header + table.render();
    }

    /** The shards {@code rate} cycles/s need at {@code micros} of Redis CPU per cycle. */
    static long shards(long rate, double micros) {
        return Math.max(1, (long) Math.ceil(rate * micros / (PLANNED_BUSY * 1e6)));
    }

    double planningMicros(LockType type) {
        double micros = this.single.get(type).redisCpuMicrosPerCycle();
        for (double shard : perShardMicros(type)) {
            micros = Math.max(micros, shard);
        }
        return micros;
    }

    /** The Cluster's Redis CPU per cycle over all shards, or NaN where it did not run. */
    double clusterMicros(LockType type) {
        Measurement many = this.cluster.get(type);
        return (many == null) ? Double.NaN : many.redisCpuMicrosPerCycle();
    }

    /**
     * Each master's CPU over the cycles it served: the Cluster's cycles apportioned by the master's share of the
     * commands Redis ran (a cycle's commands go to its key's shard).
     */
    double[] perShardMicros(LockType type) {
        Measurement many = this.cluster.get(type);
        List<ServerUsage[]> iterations = this.shards.get(type);
        if (many == null || iterations == null || iterations.isEmpty()) {
            return new double[0];
        }
        int count = iterations.get(0).length;
        long[] cpu = new long[count];
        long[] calls = new long[count];
        for (ServerUsage[] usages : iterations) {
            for (int i = 0; i < count; i++) {
                cpu[i] += usages[i].cpuMicros();
                calls[i] += usages[i].totalCalls();
            }
        }
        long allCalls = Arrays.stream(calls).sum();
        double[] micros = new double[count];
        for (int i = 0; i < count; i++) {
            double cycles = many.cycles() * ((double) calls[i] / Math.max(1, allCalls));
            micros[i] = (cycles == 0) ? Double.NaN : cpu[i] / cycles;
        }
        return micros;
    }

    private static String busy(Measurement m) {
        return Fmt.decimal(m.redisCores().median()) + " / " + Fmt.decimal(m.jvmCores().median());
    }

    private static String range(Summary summary) {
        return summary.isEmpty() ? Fmt.NONE
                : Fmt.decimal(summary.median()) + " (" + Fmt.decimal(summary.min()) + "–" + Fmt.decimal(summary.max())
                        + ")";
    }
}
