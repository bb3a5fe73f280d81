package dev.distlock.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fault explorer's soak: seeded runs one after another, for a number of seeds or minutes, with a progress line per
 * seed and a summary table at the end. Each failing seed is printed with its violations, the history before the first
 * one, and the command that replays it.
 *
 * <p>Settings (system properties, or {@code --name=value} arguments to {@link #main}): {@code explorer.seeds} (a
 * comma-separated list, or {@code random}), {@code explorer.minutes} (how long to keep drawing new seeds when the seeds
 * are random), {@code explorer.seconds} (per seed, default 20), {@code explorer.faults} (comma-separated kinds of
 * {@link ExplorerSettings#ALL_FAULTS}, {@code all} or {@code none}), {@code explorer.quorum} and {@code explorer.mixed}
 * ({@code never}, {@code always}, {@code some}: one seed in three), {@code explorer.stopOnFailure};
 * {@code explorer.schedule} (a file, or the text, of an {@link ExplorerSchedule} to replay instead of seeds),
 * {@code explorer.shrink} (minutes to shrink each failed seed's schedule with {@link ExplorerShrinker}, default 0) and
 * {@code explorer.shrinkTries} (runs of each candidate, default 3).
 */
public final class ExplorerSoak {

    private final List<ExplorerResult> results = new ArrayList<>();

    private final String faults;

    private final int seconds;

    private final String quorum;

    private final String mixed;

    ExplorerSoak(String faults, int seconds, String quorum, String mixed) {
        this.faults = faults;
        this.seconds = seconds;
        this.quorum = quorum;
        this.mixed = mixed;
    }

    public static void main(String[] arguments) throws Exception {
        for (String argument : arguments) {
            if (!argument.startsWith("--") || !argument.contains("=")) {
                throw new IllegalArgumentException("Arguments are --seeds=..., --minutes=..., --seconds=..., "
                        + "--faults=..., --quorum=never|always|some, --mixed=never|always|some, --stopOnFailure=true, "
                        + "--schedule=FILE, --shrink=MINUTES, --shrinkTries=N; "
                        + "got '" + argument + "'");
            }
            String[] pair = argument.substring(2).split("=", 2);
            System.setProperty("explorer." + pair[0], pair[1]);
        }
        List<ExplorerResult> failed = fromProperties().soak();
        System.exit(failed.isEmpty() ? 0 : 1);
    }

    static ExplorerSoak fromProperties() {
        return new ExplorerSoak(System.getProperty("explorer.faults", "all"),
                Integer.getInteger("explorer.seconds", 20), System.getProperty("explorer.quorum", "some"),
                System.getProperty("explorer.mixed", "some"));
    }

    /** Runs the seeds the properties name; returns the failed runs. */
    List<ExplorerResult> soak() throws Exception {
        String seeds = System.getProperty("explorer.seeds", "random");
        double minutes = Double.parseDouble(System.getProperty("explorer.minutes", "5"));
        boolean stopOnFailure = Boolean.parseBoolean(System.getProperty("explorer.stopOnFailure", "false"));
        long start = System.nanoTime();
        long end = start + (long) (minutes * 60e9);
        List<ExplorerResult> failed = new ArrayList<>();
        String schedule = System.getProperty("explorer.schedule", "");
        if (!schedule.isBlank()) { // a replay of a schedule: one run, no seeds drawn
            ExplorerSchedule given = ExplorerSchedule.fromProperty(schedule);
            ExplorerResult result = new ExplorerRun(given).run();
            this.results.add(result);
            System.out.printf("[explorer] %s schedule of seed %d (%d operations, %d faults): %d violations in %d s%n",
                    result.failed() ? "FAIL" : "ok  ", given.seed(), given.opCount(), given.faultCount(),
                    result.violations().size(), result.took().toSeconds());
            if (result.failed()) {
                failed.add(result);
                System.out.println(report(result, 0));
            }
            return failed;
        }
        List<Long> fixed = new ArrayList<>();
        if (!seeds.equals("random")) {
            for (String seed : seeds.split(",")) {
                fixed.add(Long.parseLong(seed.trim()));
            }
        }
        java.util.Random seedSource = new java.util.Random();
        for (int i = 0; fixed.isEmpty() ? System.nanoTime() < end : i < fixed.size(); i++) {
            long seed = fixed.isEmpty() ? seedSource.nextLong() : fixed.get(i);
            ExplorerResult result = runSeed(seed);
            System.out.printf("[explorer] %s seed %d%s: %s in %d s, %d operations, %d faults, %d checks, %d violations"
                    + " (elapsed %d s)%n", result.failed() ? "FAIL" : "ok  ", seed, mode(result),
                    result.failed() ? "FAILED" : "clean", result.took().toSeconds(), sum(result.operations()),
                    sum(result.faults()), result.checks(), result.violations().size(),
                    (System.nanoTime() - start) / 1_000_000_000L);
            if (result.failed()) {
                failed.add(result);
                System.out.println(report(result, (System.nanoTime() - start) / 1_000_000_000L));
                double shrink = Double.parseDouble(System.getProperty("explorer.shrink", "0"));
                if (shrink > 0) {
                    new ExplorerShrinker(Integer.getInteger("explorer.shrinkTries", 3),
                            Duration.ofSeconds((long) (shrink * 60))).shrink(result, SCHEDULES, REPLAY_PREFIX);
                }
                if (stopOnFailure) {
                    break;
                }
            }
        }
        System.out.println(summary(Duration.ofNanos(System.nanoTime() - start)));
        return failed;
    }

    ExplorerResult runSeed(long seed) throws Exception {
        ExplorerResult result = new ExplorerRun(ExplorerSettings.of(seed, Duration.ofSeconds(this.seconds),
                this.faults, this.quorum, this.mixed)).run();
        this.results.add(result);
        return result;
    }

    /** A failed run: seed, violations, the history before the first, and the replay command. */
    String report(ExplorerResult result, long elapsedSeconds) {
        StringBuilder text = new StringBuilder();
        text.append("\n=== explorer FAILURE, seed ").append(result.seed()).append(" (found after ")
            .append(elapsedSeconds).append(" s of soak) ===\n");
        int shown = 0;
        for (String violation : result.violations()) {
            if (shown++ == 8) {
                text.append("  ... and ").append(result.violations().size() - 8).append(" more\n");
                break;
            }
            text.append("  violation: ").append(violation).append('\n');
        }
        text.append("  history before the first violation:\n");
        for (String line : result.excerpt()) {
            text.append("    ").append(line).append('\n');
        }
        text.append("  replay: ").append(replayCommand(result.seed())).append('\n');
        try {
            Files.createDirectories(SCHEDULES);
            Path file = SCHEDULES.resolve("seed-" + result.seed() + ".txt").toAbsolutePath();
            Files.writeString(file, result.schedule().text());
            text.append("  replay its schedule (").append(result.schedule().items().size()).append(" items): ")
                .append(REPLAY_PREFIX).append(" -Dexplorer.schedule=").append(file).append('\n');
        }
        catch (IOException ex) {
            text.append("  (its schedule could not be written: ").append(ex).append(")\n");
        }
        text.append("  shrink it: ").append(replayCommand(result.seed())).append(" -Dexplorer.shrink=20\n");
        return text.toString();
    }

    /** Where failed runs' schedules are written (under the module's target directory in a Maven run). */
    static final Path SCHEDULES = Path.of("target", "explorer-schedules");

    /** The soak command without its settings. */
    static final String REPLAY_PREFIX = "mvn -B -ntp -pl lock-reliability-tests -am verify -Dtest=ExplorerSoakTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dexcluded.test.groups=none";

    String replayCommand(long seed) {
        return REPLAY_PREFIX + " -Dexplorer.seeds=" + seed + " -Dexplorer.seconds=" + this.seconds
                + " -Dexplorer.faults=" + this.faults + " -Dexplorer.quorum=" + this.quorum + " -Dexplorer.mixed="
                + this.mixed;
    }

    private static String mode(ExplorerResult result) {
        String mode = (result.quorum() ? ", quorum" : "") + (result.mixed() ? ", mixed" : "");
        return mode.isEmpty() ? "" : " (" + mode.substring(2) + ")";
    }

    /** The table at the end: operations per kind, faults per kind, checks, failures. */
    String summary(Duration took) {
        Map<String, Long> operations = new TreeMap<>();
        Map<String, Long> faultCounts = new TreeMap<>();
        long checks = 0;
        int failures = 0;
        for (ExplorerResult result : this.results) {
            result.operations().forEach((kind, count) -> operations.merge(kind, count, Long::sum));
            result.faults().forEach((kind, count) -> faultCounts.merge(kind, count, Long::sum));
            checks += result.checks();
            failures += result.failed() ? 1 : 0;
        }
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                "%n=== explorer summary: %d seeds in %d min %d s, faults %s, quorum %s, mixed %s ===%n",
                this.results.size(), took.toMinutes(), took.toSecondsPart(), this.faults, this.quorum, this.mixed));
        text.append(String.format("%-40s %12s%n", "operation", "count"));
        operations.forEach((kind, count) -> text.append(String.format("%-40s %12d%n", kind, count)));
        text.append(String.format("%-40s %12d%n", "operations in all", sum(operations)));
        text.append(String.format("%-40s %12s%n", "fault", "count"));
        faultCounts.forEach((kind, count) -> text.append(String.format("%-40s %12d%n", kind, count)));
        text.append(String.format("%-40s %12d%n", "faults in all", sum(faultCounts)));
        text.append(String.format("%-40s %12d%n", "invariant checks", checks));
        text.append(String.format("%-40s %12d%n", "failed seeds", failures));
        for (ExplorerResult result : this.results) {
            if (result.failed()) {
                text.append(String.format("  seed %d: %s%n", result.seed(), shorten(result.violations().get(0))));
            }
        }
        return text.toString();
    }

    private static String shorten(String text) {
        return text.length() > 220 ? text.substring(0, 220) + "..." : text;
    }

    private static long sum(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
