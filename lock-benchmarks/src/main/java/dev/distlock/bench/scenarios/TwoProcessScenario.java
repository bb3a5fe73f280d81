package dev.distlock.bench.scenarios;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.report.Fmt;

/**
 * Scenario 6: two client processes (two JVMs, {@code TwoProcessWorker}) of one implementation, 8 threads each, on
 * one hot key at the same time: throughput, and each side's p99 wait, which shows whether one process starves the
 * other.
 */
public final class TwoProcessScenario implements Scenario {

    static final int THREADS = 8;

    @Override
    public String id() {
        return "6";
    }

    @Override
    public String title() {
        return "two client processes on one hot key";
    }

    @Override
    public String description() {
        return """
                Two JVMs, each one client of the implementation with %d threads, lock and unlock the same key as \
                fast as they can for one window (the run's iteration length times its measured iterations), after \
                a warm-up cycle each. A wait is the time from the acquire call to its return. Starvation shows as \
                one side's p99 wait far above the other's. One window per implementation, one after the other; \
                no Redis counters.""".formatted(THREADS);
    }

    @Override
    public Duration estimate(RunConfig config, List<Implementation> implementations) {
        return window(config).plusSeconds(12).multipliedBy(implementations.size());
    }

    private static Duration window(RunConfig config) {
        return config.iteration().multipliedBy(config.iterations());
    }

    @Override
    public ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception {
        context.flush();
        context.progress("Scenario 6: %s", title());
        RunConfig config = context.config();
        StringBuilder table = new StringBuilder("""
                | implementation | cycles/s (both) | process A cycles | process B cycles | A p50 / p99 wait | \
                B p50 / p99 wait | larger p99 ÷ smaller | timeouts |
                | --- | --- | --- | --- | --- | --- | --- | --- |
                """);
        Map<Implementation, double[]> ratios = new LinkedHashMap<>();
        for (Implementation implementation : implementations) {
            context.flush();
            long start = System.currentTimeMillis() + 8_000; // both JVMs started and warmed up by then
            long end = start + window(config).toMillis();
            Process a = launch(implementation, context, config, start, end);
            Process b = launch(implementation, context, config, start, end);
            double[] ra = result(a, end, config);
            double[] rb = result(b, end, config);
            double seconds = (end - start) / 1000.0;
            double ratio = Math.max(ra[2], rb[2]) / Math.min(ra[2], rb[2]);
            ratios.put(implementation, new double[] { ratio, (ra[0] + rb[0]) / seconds });
            table.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s / %s | %s / %s | %s | %d |%n",
                    implementation.label(), Fmt.count((ra[0] + rb[0]) / seconds), Fmt.count(ra[0]), Fmt.count(rb[0]),
                    Fmt.micros(ra[1]), Fmt.micros(ra[2]), Fmt.micros(rb[1]), Fmt.micros(rb[2]), Fmt.ratio(ratio),
                    (long) (ra[4] + rb[4])));
        }
        LAST.clear();
        LAST.putAll(ratios);
        return new ScenarioReport(this, table.toString(), Map.of(), Map.of());
    }

    /** The last run's figures per implementation: {larger p99 ÷ smaller, cycles/s}, for the target assessment. */
    public static final Map<Implementation, double[]> LAST = new LinkedHashMap<>();

    private static Process launch(Implementation implementation, BenchContext context, RunConfig config, long start,
            long end) throws IOException {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                "dev.distlock.bench.TwoProcessWorker", Integer.toString(context.port()), implementation.label(),
                Integer.toString(THREADS), Long.toString(config.watchdogLease().toMillis()),
                Long.toString(config.maxWait().toMillis()), Long.toString(start), Long.toString(end)));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** {cycles, p50, p99, max, timeouts} from the worker's RESULT line. */
    private static double[] result(Process process, long end, RunConfig config) throws Exception {
        String line = null;
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String next = out.readLine(); next != null; next = out.readLine()) {
                if (next.startsWith("RESULT ")) {
                    line = next;
                }
            }
        }
        long left = end - System.currentTimeMillis() + config.maxWait().toMillis() + 20_000;
        if (!process.waitFor(Math.max(left, 1000), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("a two-process worker did not finish");
        }
        if (line == null) {
            throw new IllegalStateException("a two-process worker reported nothing (exit " + process.exitValue() + ")");
        }
        double[] values = new double[5];
        String[] parts = line.substring("RESULT ".length()).split(" ");
        for (int i = 0; i < 5; i++) {
            values[i] = Double.parseDouble(parts[i].substring(parts[i].indexOf('=') + 1));
        }
        return values;
    }
}
