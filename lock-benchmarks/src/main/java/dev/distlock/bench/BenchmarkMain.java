package dev.distlock.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.BenchContext;
import dev.distlock.bench.redis.RedisBuild;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.report.BarChart;
import dev.distlock.bench.report.Environment;
import dev.distlock.bench.report.Targets;
import dev.distlock.bench.scenarios.Scenario;
import dev.distlock.bench.scenarios.ScenarioReport;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * Runs the benchmark: starts one redis-server on 127.0.0.1, runs the chosen scenarios for every implementation in
 * turn, and prints a markdown report on standard output (progress goes to standard error). See BENCHMARKS.md.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        RunConfig config;
        try {
            config = RunConfig.parse(args);
        }
        catch (IllegalArgumentException ex) {
            System.err.println(ex.getMessage());
            System.exit(RunConfig.USAGE.equals(ex.getMessage()) ? 0 : 2);
            return;
        }
        List<Scenario> scenarios = Scenario.all()
            .stream()
            .filter(scenario -> config.scenarios().contains(scenario.id()))
            .collect(Collectors.toList());
        List<Scenario> skipped = scenarios.stream()
            .filter(scenario -> scenario.covered(config.implementations()).isEmpty())
            .toList();
        scenarios.removeAll(skipped);
        Duration estimate = scenarios.stream()
            .map(scenario -> scenario.estimate(config, scenario.covered(config.implementations())))
            .reduce(Scenario.warmUpEstimate(config, config.implementations()).plusSeconds(5), Duration::plus);
        Duration bound = estimate.multipliedBy(3).dividedBy(2).plusMinutes(3);
        PrintStream progress = System.err;
        progress.printf("distlock benchmarks, %s mode: about %d min %d s in total (stops itself after %d min)%n",
                config.mode(), estimate.toMinutes(), estimate.toSecondsPart(), bound.toMinutes());
        skipped.forEach(scenario -> progress.printf("Scenario %s skipped: none of the chosen implementations runs "
                + "in it%n", scenario.id()));
        stopAfter(bound);

        StringBuilder report = new StringBuilder();
        try (RedisServers servers = RedisServers.create()) {
            RedisBuild build = RedisBuild.choose(RedisBuild.DEBIAN);
            RedisNode node = servers.start(build.config());
            RedisProbe probe = new RedisProbe(node);
            String server = build.describe(probe.serverVersion(), probe.memoryAllocator());
            progress.println("redis-server: " + server);
            section(report, header(config, estimate, server));
            BenchContext context = new BenchContext(config, node.port(), probe, progress, servers, build.config());
            Scenario.warmUpJvm(config.implementations(), context);
            Map<String, ScenarioReport> results = new LinkedHashMap<>();
            for (Scenario scenario : scenarios) {
                ScenarioReport result = scenario.run(scenario.covered(config.implementations()), context);
                results.put(scenario.id(), result);
                section(report, "## Scenario " + scenario.id() + ": " + scenario.title() + "\n\n"
                        + scenario.description() + "\n\n" + chart(config, scenario, result) + result.markdown());
            }
            section(report, "## Targets, from this run\n\n" + new Targets(results).render());
        }
        if (config.out() != null) {
            Files.writeString(config.out(), report, StandardCharsets.UTF_8);
            progress.println("Report written to " + config.out().toAbsolutePath());
        }
        System.exit(0); // client libraries may leave non-daemon threads behind
    }

    /**
     * Writes the scenario's SVG chart beside the report (scenario-N.svg in the directory of --out) and returns the
     * markdown that embeds it; nothing without --out or without a chart.
     */
    private static String chart(RunConfig config, Scenario scenario, ScenarioReport result) throws IOException {
        if (config.out() == null || result.chart().isEmpty()) {
            return "";
        }
        String name = "scenario-" + scenario.id() + ".svg";
        Path directory = config.out().toAbsolutePath().getParent();
        Files.createDirectories(directory);
        Files.writeString(directory.resolve(name), BarChart.svg("Scenario " + scenario.id() + ": " + scenario.title(),
                result.chart()), StandardCharsets.UTF_8);
        return "![Scenario " + scenario.id() + " chart](" + name + ")\n\n";
    }

    private static void section(StringBuilder report, String text) {
        report.append(text).append('\n');
        System.out.println(text);
        System.out.flush();
    }

    private static String header(RunConfig config, Duration estimate, String redisServer) {
        StringBuilder out = new StringBuilder("# distlock benchmark results\n\n");
        out.append("These figures are from one run on a shared machine: the JVM under test and redis-server share its ")
            .append("cores, so read differences of a few percent as noise.\n\n");
        out.append("- Run: ")
            .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
            .append(", ")
            .append(config.mode())
            .append(" mode (")
            .append(config.warmups())
            .append(" warm-up + ")
            .append(config.iterations())
            .append(" measured iterations of ")
            .append(config.iteration().toSeconds())
            .append(" s per implementation and timed scenario; watchdog window ")
            .append(config.watchdogWindow().toSeconds())
            .append(" s with a ")
            .append(config.watchdogLease().toSeconds())
            .append(" s lease; estimated ")
            .append(estimate.toMinutes())
            .append(" min ")
            .append(estimate.toSecondsPart())
            .append(" s; before the scenarios every implementation ran ")
            .append(config.jvmWarmUp().toSeconds())
            .append(" s of scenario 2's load to warm the JVM up)\n");
        out.append(Environment.machine());
        Environment.libraries(redisServer)
            .forEach((library, version) -> out.append("- ").append(library).append(": ").append(version).append('\n'));
        out.append("\nImplementations, each with clients of its own against the same server (flushed before each "
                + "scenario). In the timed scenarios (1, 2, 3, 5, 7, 8, 11) all clients stay open and the implementations "
                + "take turns iteration by iteration, the first to go moving on by one each round; scenarios 4, 6 and 9 "
                + "run them one after the other. The non-blocking ones (-async) run in scenarios 7 and 8 only, with "
                + config.inFlight() + " cycles in flight; the blocking ones in 1 to 6 (the fenced floor, a "
                + "reference, in 1 and 2 only), and the raw floors and the non-blocking fenced floor in 7 as the "
                + "references; 9 compares distlock's and Redisson's watchdogs, 10 measures distlock's lock "
                + "types (through its non-blocking API) on this server and on a 3-master Redis Cluster, and 11 "
                + "compares distlock's and Redisson's leased semaphores (load in turns, then memory one after the "
                + "other):\n\n");
        for (Implementation implementation : config.implementations()) {
            out.append("- ").append(implementation.label()).append(": ").append(implementation.description())
                .append('\n');
        }
        out.append("\nFigures: medians over the measured iterations, with (min–max) across them. Latencies are "
                + "per iteration percentiles. cmds/cycle counts every `INFO commandstats` call (after `CONFIG "
                + "RESETSTAT`), including commands that Lua scripts run inside Redis; scripts/cycle counts "
                + "EVAL/EVALSHA calls alone. Redis CPU is `used_cpu_sys + used_cpu_user` from `INFO cpu`. "
                + "\"distlock ÷ this\" above 1× means distlock is faster (cycles/s) or slower (latency).\n");
        return out.toString();
    }

    /** Ends the JVM (and, through its shutdown hook, the redis-server) if the run overruns its bound. */
    private static void stopAfter(Duration bound) {
        Thread stopper = new Thread(() -> {
            try {
                Thread.sleep(bound.toMillis());
                System.err.println("The benchmark ran past its bound of " + bound.toMinutes() + " min; stopping.");
                System.exit(3);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, "bench-time-bound");
        stopper.setDaemon(true);
        stopper.start();
    }
}
