package dev.distlock.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.bench.redis.RedisBuild;
import dev.distlock.bench.redis.RedisProbe;
import dev.distlock.bench.scriptcost.CostCase;
import dev.distlock.bench.scriptcost.CostWindow;
import dev.distlock.bench.scriptcost.ScriptCases;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/**
 * Redis's cost of each lock script and of each part of one: every case runs alone on an emptied Redis, its calls
 * between {@code CONFIG RESETSTAT} and {@code INFO commandstats} (the scripts' {@code usec}, inner commands included)
 * and {@code INFO cpu} (the process's CPU, network included), once to warm up and then {@code rounds} times, the cases
 * interleaved round by round so that the machine's load falls on all alike: rows compared with each other run next to
 * each other, and each comparison is the median over rounds of the two rows' ratio in the same round. A/B rows take
 * one part out of a script; "floor" rows cost one part alone; both are sent as the lock's own row is (the script's one
 * text, every argument as ARGV). Runs on the jemalloc
 * {@code redis-server} when the machine has one (see {@link RedisBuild}). Run: {@code java -cp
 * lock-benchmarks/target/lock-benchmarks.jar dev.distlock.bench.ScriptCost [calls per window, default 10000] [rounds,
 * default 5] [markdown file to write]}.
 */
public final class ScriptCost {

    private ScriptCost() {
    }

    public static void main(String[] args) throws Exception {
        int calls = (args.length > 0) ? Integer.parseInt(args[0]) : 10_000;
        int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 5;
        Path out = (args.length > 2) ? Path.of(args[2]) : null;
        StringBuilder report = new StringBuilder();
        try (RedisServers servers = RedisServers.create()) {
            RedisBuild build = RedisBuild.choose(RedisBuild.DEBIAN);
            RedisNode node = servers.start(build.config());
            RedisProbe probe = new RedisProbe(node);
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisStandaloneConfiguration("127.0.0.1", node.port()),
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(30)).build());
            factory.afterPropertiesSet();
            factory.start();
            try {
                Thread.sleep(1100); // older than the cases' 1 s restart grace, so that its marker is written
                List<CostCase> cases = new ScriptCases(new StringRedisTemplate(factory)).all();
                CostWindow window = new CostWindow(probe, calls);
                Map<CostCase, List<CostWindow.Sample>> samples = new LinkedHashMap<>();
                cases.forEach(testCase -> samples.put(testCase, new ArrayList<>()));
                for (int round = 0; round <= rounds; round++) {
                    System.err.printf(Locale.ROOT, "round %d of %d%n", round, rounds);
                    // rows compared with each other run next to each other, in a random order, and the groups in a
                    // random order too, so that the machine's load falls on both sides of a comparison alike
                    java.util.Random random = new java.util.Random(round);
                    Map<String, List<CostCase>> groups = new LinkedHashMap<>();
                    cases.forEach(testCase -> groups.computeIfAbsent(testCase.group(), g -> new ArrayList<>())
                        .add(testCase));
                    List<List<CostCase>> groupOrder = new ArrayList<>(groups.values());
                    java.util.Collections.shuffle(groupOrder, random);
                    List<CostCase> order = new ArrayList<>();
                    for (List<CostCase> group : groupOrder) {
                        List<CostCase> members = new ArrayList<>(group);
                        java.util.Collections.shuffle(members, random);
                        order.addAll(members);
                    }
                    for (CostCase testCase : order) {
                        CostWindow.Sample sample = window.run(testCase);
                        if (round > 0) { // round 0 warms the JVM and loads the scripts
                            samples.get(testCase).add(sample);
                        }
                    }
                }
                report.append(render(build.describe(probe.serverVersion(), probe.memoryAllocator()), calls, rounds,
                        samples));
            }
            finally {
                factory.destroy();
            }
        }
        System.out.println(report);
        if (out != null) {
            Files.writeString(out, report, StandardCharsets.UTF_8);
        }
        System.exit(0);
    }

    private static String render(String server, int calls, int rounds, Map<CostCase, List<CostWindow.Sample>> samples) {
        StringBuilder out = new StringBuilder();
        out.append("Run ").append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append(" on ").append(server)
            .append("; ").append(calls).append(" calls per window, ").append(rounds)
            .append(" rounds (median, min–max).\n\n");
        out.append("| case | what it shows | script µs/call | Redis CPU µs/call | ÷ compared row | commands inside "
                + "| per call |\n");
        out.append("|---|---|---|---|---|---|---|\n");
        Map<String, List<CostWindow.Sample>> byName = new LinkedHashMap<>();
        samples.forEach((testCase, runs) -> byName.put(testCase.name(), runs));
        for (Map.Entry<CostCase, List<CostWindow.Sample>> entry : samples.entrySet()) {
            List<CostWindow.Sample> runs = entry.getValue();
            double[] script = runs.stream().mapToDouble(CostWindow.Sample::scriptMicrosPerCall).sorted().toArray();
            double[] cpu = runs.stream().mapToDouble(CostWindow.Sample::cpuMicrosPerCall).sorted().toArray();
            int wrong = runs.stream().mapToInt(CostWindow.Sample::wrong).sum();
            String reference = entry.getKey().reference();
            String ratio = (reference == null) ? "" : String.format(Locale.ROOT, "%.3f × %s", medianRatio(runs,
                    byName.get(reference)), reference);
            out.append(String.format(Locale.ROOT,
                    "| %s | %s | %.2f (%.2f–%.2f) | %.2f (%.2f–%.2f) | %s | %.1f | %s |%n",
                    entry.getKey().name() + (wrong > 0 ? " (**" + wrong + " unexpected replies**)" : ""),
                    entry.getKey().measures(), median(script), script[0], script[script.length - 1], median(cpu),
                    cpu[0], cpu[cpu.length - 1], ratio, runs.get(0).innerCommandsPerCall(), commands(runs.get(0))));
        }
        return out.toString();
    }

    /** The median over rounds of this row's script µs per call ÷ its reference's in the same round. */
    private static double medianRatio(List<CostWindow.Sample> runs, List<CostWindow.Sample> reference) {
        double[] ratios = new double[Math.min(runs.size(), reference.size())];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = runs.get(i).scriptMicrosPerCall() / reference.get(i).scriptMicrosPerCall();
        }
        java.util.Arrays.sort(ratios);
        return median(ratios);
    }

    private static double median(double[] sorted) {
        int middle = sorted.length / 2;
        return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** The commands run inside the scripts, per call, e.g. {@code hmget 1, hset 1, pexpire 1}. */
    private static String commands(CostWindow.Sample sample) {
        Map<String, Long> inner = new TreeMap<>(sample.usage().calls());
        inner.keySet().removeAll(Arrays.asList("evalsha", "eval", "script|load"));
        StringBuilder text = new StringBuilder();
        inner.forEach((command, count) -> {
            if (text.length() > 0) {
                text.append(", ");
            }
            text.append(command)
                .append(' ')
                .append(String.format(Locale.ROOT, "%.2f", (double) count / sample.calls()));
        });
        return text.toString();
    }
}
