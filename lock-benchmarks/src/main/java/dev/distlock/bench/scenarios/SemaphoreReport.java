package dev.distlock.bench.scenarios;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.report.BarChart;
import dev.distlock.bench.report.Fmt;
import dev.distlock.bench.report.Table;
import dev.distlock.bench.scenarios.SemaphoreScenario.Shape;

/** Scenario 11's section: the load table, the memory table, a summary line of figures and ratios, and the chart. */
final class SemaphoreReport {

    private final Map<Shape, Map<Implementation, Measurement>> measured;

    private final Map<Implementation, SemaphoreMemory.Result> memory;

    SemaphoreReport(Map<Shape, Map<Implementation, Measurement>> measured,
            Map<Implementation, SemaphoreMemory.Result> memory) {
        this.measured = measured;
        this.memory = memory;
    }

    String markdown() {
        return loadTable() + "\n" + memoryTable() + "\n" + summary();
    }

    private String loadTable() {
        Table table = new Table("threads on", "implementation", "cycles/s median (min–max)", "cycle p50",
                "cycle p99 (min–max)", "cmds/cycle", "scripts/cycle", "Redis CPU µs/cycle",
                "distlock ÷ this: cycles/s", "distlock ÷ this: Redis CPU µs/cycle");
        StringBuilder notes = new StringBuilder();
        this.measured.forEach((shape, rows) -> {
            Measurement distlock = rows.get(Implementation.DISTLOCK);
            rows.forEach((implementation, m) -> {
                table.row(shape.label, implementation.label(), Fmt.countRange(m.cyclesPerSecond()),
                        Fmt.micros(m.cycleLatencyMicros(50).median()), Fmt.microsRange(m.cycleLatencyMicros(99)),
                        Fmt.decimal(m.commandsPerCycle()), Fmt.decimal(m.scriptCallsPerCycle()),
                        Fmt.decimal(m.redisCpuMicrosPerCycle()),
                        (distlock == null) ? Fmt.NONE
                                : Fmt.ratio(distlock.cyclesPerSecond().median() / m.cyclesPerSecond().median()),
                        (distlock == null) ? Fmt.NONE
                                : Fmt.ratio(distlock.redisCpuMicrosPerCycle() / m.redisCpuMicrosPerCycle()));
                notes.append(Notes.commandMix(implementation, m).replaceFirst("^- ", "- " + shape.label + ", "));
                notes.append(Notes.problems(implementation, m));
            });
        });
        return table.render() + "\n" + notes;
    }

    private String memoryTable() {
        Table table = new Table("implementation", "B per semaphore, one permit held", "B per further held permit",
                "MEMORY USAGE: per semaphore", "MEMORY USAGE: per further permit", "keys per semaphore, 5 held",
                "keys left per semaphore right after release", "B left per semaphore right after release");
        StringBuilder keys = new StringBuilder();
        this.memory.forEach((implementation, r) -> {
            table.row(implementation.label(), Fmt.count(r.bytesPerSemaphore()), Fmt.count(r.bytesPerFurtherPermit()),
                    Fmt.count(r.keyBytesPerSemaphore()), Fmt.count(r.keyBytesPerFurtherPermit()),
                    Fmt.decimal(r.keysPerFullSemaphore()), Fmt.decimal(r.keysLeftPerSemaphore()),
                    Fmt.count(r.bytesLeftPerSemaphore()));
            keys.append("- ").append(implementation.label()).append(" keys of one semaphore with 5 permits held: ")
                .append(String.join(", ", r.keysOfFullSemaphore().stream().map(key -> "`" + key + "`").toList()))
                .append('\n');
        });
        return String.format(Locale.ROOT, "Redis memory of %,d semaphores of 5, per semaphore or per permit: the "
                + "difference in used_memory less the clients' buffers (INFO memory), read once it has settled, "
                + "which counts everything the data costs; beside it the difference in the sum of every key's "
                + "MEMORY USAGE, which counts each key's name, value and dictionary entry but not the keyspace's "
                + "buckets nor the expiry table, and rounds differently:%n%n", SemaphoreMemory.SEMAPHORES)
                + table.render() + "\n" + keys + "- Left right after release: distlock keeps each semaphore's last "
                + "fencing token and each released holder's mark for its retry window, after which they expire "
                + "(docs/semaphores.md); Redisson keeps the semaphore's count key, without an expiry.\n";
    }

    /** Figures and ratios side by side, without a verdict. */
    String summary() {
        SemaphoreMemory.Result dm = this.memory.get(Implementation.DISTLOCK);
        SemaphoreMemory.Result rm = this.memory.get(Implementation.REDISSON);
        List<String> parts = new ArrayList<>();
        this.measured.forEach((shape, rows) -> {
            Measurement d = rows.get(Implementation.DISTLOCK);
            Measurement r = rows.get(Implementation.REDISSON);
            if (d != null && r != null) {
                parts.add(String.format(Locale.ROOT, "16 threads on %s: %s vs %s cycles/s (distlock ÷ Redisson %s), "
                        + "p99 %s vs %s, %s vs %s Redis CPU µs and %s vs %s commands per cycle", shape.label,
                        Fmt.count(d.cyclesPerSecond().median()), Fmt.count(r.cyclesPerSecond().median()),
                        Fmt.ratio(d.cyclesPerSecond().median() / r.cyclesPerSecond().median()),
                        Fmt.micros(d.cycleLatencyMicros(99).median()), Fmt.micros(r.cycleLatencyMicros(99).median()),
                        Fmt.decimal(d.redisCpuMicrosPerCycle()), Fmt.decimal(r.redisCpuMicrosPerCycle()),
                        Fmt.decimal(d.commandsPerCycle()), Fmt.decimal(r.commandsPerCycle())));
            }
        });
        if (dm != null && rm != null) {
            parts.add(String.format(Locale.ROOT, "memory %s vs %s B per semaphore with one permit held and %s vs %s B "
                    + "per further permit", Fmt.count(dm.bytesPerSemaphore()), Fmt.count(rm.bytesPerSemaphore()),
                    Fmt.count(dm.bytesPerFurtherPermit()), Fmt.count(rm.bytesPerFurtherPermit())));
        }
        return parts.isEmpty() ? ""
                : "- Summary, distlock vs Redisson (medians): " + String.join("; ", parts) + ".\n";
    }

    List<BarChart.Panel> chart() {
        Map<String, Measurement> rows = new LinkedHashMap<>();
        this.measured.forEach((shape, byImplementation) -> byImplementation
            .forEach((implementation, m) -> rows.put(implementation.label() + ", " + shape.label, m)));
        List<BarChart.Panel> panels = new ArrayList<>(ScenarioReport.cyclePanels(rows, label -> label));
        if (!this.memory.isEmpty()) {
            List<BarChart.Bar> bytes = new ArrayList<>();
            this.memory.forEach((implementation, r) -> {
                bytes.add(single(implementation.label() + ", semaphore", r.bytesPerSemaphore()));
                bytes.add(single(implementation.label() + ", more permit", r.bytesPerFurtherPermit()));
            });
            panels.add(new BarChart.Panel("Redis memory, bytes", "per semaphore with one permit held, per further "
                    + "held permit; lower is better", bytes));
        }
        return panels;
    }

    private static BarChart.Bar single(String label, double value) {
        return new BarChart.Bar(label, value, Double.NaN, Double.NaN);
    }
}
