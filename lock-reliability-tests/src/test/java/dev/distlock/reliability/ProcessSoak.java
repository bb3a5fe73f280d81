package dev.distlock.reliability;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * Seeds of the explorer's process mode run one after the other ({@link ProcessRun}), reported one line each, a
 * failed one with its violations and its replay; and the shrinker on a failed one (ddmin of
 * {@link ExplorerShrinker#ddmin} over its recorded schedule). Properties: {@code explorer.process.minutes} or
 * {@code explorer.process.seeds}, {@code explorer.process.seconds} (20), {@code explorer.process.schedule} (a file to
 * replay), {@code explorer.process.core} (another build's lock-core classes for the children),
 * {@code explorer.process.faults} (a comma-separated subset of kill, stop, redis-restart, redis-pause, failover),
 * {@code explorer.process.cluster} ({@code none}, the default; {@code some}: a seed in three, by its value, runs on a
 * Redis Cluster with kill, stop and failover faults; {@code all}),
 * {@code explorer.process.shrink} (minutes per failed seed, 0), {@code explorer.process.shrinkTries} (3),
 * {@code explorer.stopOnFailure}.
 */
final class ProcessSoak {

    static final Path DIR = Path.of("target", "explorer-schedules");

    static final String COMMAND = "mvn -B -ntp -pl lock-reliability-tests -am verify -Dtest=ExplorerProcessSoakTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dexcluded.test.groups=none";

    private final String core = System.getProperty("explorer.process.core");

    private final String kinds = System.getProperty("explorer.process.faults");

    private final String cluster = System.getProperty("explorer.process.cluster", "none");

    private int clusterSeeds;

    private int seeds;

    private int grants;

    private int checks;

    private int wakeUps;

    private int failed;

    private final Map<String, Integer> faults = new TreeMap<>();

    /** Runs what the properties ask; returns the failed results. */
    List<ProcessResult> soak() throws Exception {
        List<ProcessResult> failures = new ArrayList<>();
        long start = System.nanoTime();
        String schedule = System.getProperty("explorer.process.schedule");
        String seedList = System.getProperty("explorer.process.seeds");
        int seconds = Integer.getInteger("explorer.process.seconds", 20);
        double minutes = Double.parseDouble(System.getProperty("explorer.process.minutes", "0"));
        boolean stop = Boolean.getBoolean("explorer.stopOnFailure");
        List<ExplorerSchedule> runs = new ArrayList<>();
        if (schedule != null) {
            runs.add(ExplorerSchedule.fromProperty(schedule));
        }
        else if (seedList != null) {
            for (String seed : seedList.split(",")) {
                runs.add(seeded(Long.parseLong(seed.trim()), seconds));
            }
        }
        Random seedsDrawn = new Random();
        while (!runs.isEmpty() || minutes > 0 && System.nanoTime() - start < minutes * 60e9) {
            ExplorerSchedule next = runs.isEmpty() ? seeded(seedsDrawn.nextLong(), seconds) : runs.remove(0);
            ProcessResult result = run(next);
            System.out.println(report(result, Duration.ofNanos(System.nanoTime() - start)));
            if (result.failed()) {
                failures.add(result);
                double shrink = Double.parseDouble(System.getProperty("explorer.process.shrink", "0"));
                if (shrink > 0) {
                    shrink(result, Duration.ofSeconds((long) (shrink * 60)));
                }
                if (stop) {
                    break;
                }
            }
        }
        System.out.println(summary(Duration.ofNanos(System.nanoTime() - start)));
        return failures;
    }

    /** The schedule of a seed: on a Redis Cluster or not, as {@code explorer.process.cluster} and the seed say. */
    ExplorerSchedule seeded(long seed, int seconds) {
        boolean onCluster = switch (this.cluster) {
            case "none" -> false;
            case "some" -> Math.floorMod(seed, 3) == 0;
            case "all" -> true;
            default -> throw new IllegalArgumentException("explorer.process.cluster: none, some or all, but was "
                    + this.cluster);
        };
        return onCluster ? ProcessRun.seededOnCluster(seed, seconds, kinds(ProcessFaults.CLUSTER_KINDS))
                : ProcessRun.seeded(seed, seconds, kinds(ProcessFaults.KINDS));
    }

    /** The kinds of {@code explorer.process.faults} that {@code all} offers (all of them if it is not set). */
    private List<String> kinds(List<String> all) {
        if (this.kinds == null) {
            return all;
        }
        List<String> chosen = List.of(this.kinds.split(","));
        List<String> kept = chosen.stream().filter(all::contains).toList();
        if (kept.isEmpty() || !chosen.stream().allMatch(k -> ProcessFaults.KINDS.contains(k)
                || ProcessFaults.CLUSTER_KINDS.contains(k))) {
            throw new IllegalArgumentException("explorer.process.faults: a comma-separated subset of "
                    + ProcessFaults.KINDS + " (on a Redis Cluster: of " + ProcessFaults.CLUSTER_KINDS + "), but was "
                    + this.kinds + " for a run that offers " + all);
        }
        return kept;
    }

    ProcessResult run(ExplorerSchedule schedule) throws Exception {
        ProcessResult result = new ProcessRun(schedule, this.core, DIR).run();
        this.seeds++;
        this.clusterSeeds += schedule.faults().startsWith(ProcessRun.CLUSTER) ? 1 : 0;
        this.grants += result.grants();
        this.checks += result.checks();
        this.wakeUps += result.wakeUpsJudged();
        this.failed += result.failed() ? 1 : 0;
        result.faultsByKind().forEach((kind, count) -> this.faults.merge(kind, count, Integer::sum));
        return result;
    }

    String report(ProcessResult result, Duration elapsed) throws Exception {
        boolean onCluster = result.schedule().faults().startsWith(ProcessRun.CLUSTER);
        String line = String.format("[explorer-process] %s seed %d%s: %d grants, %d refusals, faults %s, %d checks, "
                + "%d waits judged for wake-up, %d violations in %d s (elapsed %d s)", result.failed() ? "FAIL" : "ok  ",
                result.seed(), onCluster ? " (cluster)" : "", result.grants(), result.refusals(), result.faultsByKind(), result.checks(),
                result.wakeUpsJudged(), result.violations().size(),
                result.took().toSeconds(), elapsed.toSeconds());
        if (!result.failed()) {
            return line;
        }
        Files.createDirectories(DIR);
        Path file = DIR.resolve("process-seed-" + result.seed() + ".txt").toAbsolutePath();
        Files.writeString(file, result.schedule().text());
        StringBuilder text = new StringBuilder(line).append('\n');
        result.violations().stream().limit(8).forEach(v -> text.append("  violation: ").append(v).append('\n'));
        text.append("  replay: ").append(COMMAND).append(" -Dexplorer.process.seeds=").append(result.seed())
            .append(" -Dexplorer.process.seconds=").append(result.schedule().seconds())
            .append(onCluster ? " -Dexplorer.process.cluster=all" : "").append('\n');
        text.append("  replay its schedule (").append(result.schedule().items().size()).append(" items): ")
            .append(COMMAND).append(" -Dexplorer.process.schedule=").append(file);
        if (this.core != null) {
            text.append(" -Dexplorer.process.core=").append(this.core);
        }
        return text.toString();
    }

    String summary(Duration took) {
        return String.format("[explorer-process] %d seeds (%d on a cluster) in %d s: %d failed, %d grants, faults %s, %d checks (%d waits "
                + "judged for wake-up)", this.seeds, this.clusterSeeds, took.toSeconds(), this.failed, this.grants, this.faults, this.checks,
                this.wakeUps);
    }

    /** ddmin over the failed run's schedule: a candidate is kept if one of its tries fails with the same kind. */
    List<ExplorerSchedule.Item> shrink(ProcessResult failed, Duration budget) throws Exception {
        int tries = Integer.getInteger("explorer.process.shrinkTries", 3);
        String kind = kind(failed.violations().get(0));
        ExplorerSchedule whole = failed.schedule();
        long start = System.nanoTime();
        int[] runs = { 0 };
        System.out.printf("[shrink] seed %d: %d operations and %d faults, first violation of kind '%s'%n",
                failed.seed(), whole.opCount(), whole.faultCount(), kind);
        List<ExplorerSchedule.Item> items = ExplorerShrinker.ddmin(whole.items(), candidate -> {
            for (int i = 0; i < tries; i++) {
                runs[0]++;
                try {
                    ProcessResult result = new ProcessRun(whole.with(candidate), this.core, DIR).run();
                    boolean same = result.violations().stream().anyMatch(v -> kind(v).equals(kind));
                    System.out.printf("[shrink]   %d items: %s%n", candidate.size(), same ? "fails the same way"
                            : result.failed() ? "fails otherwise" : "passes");
                    if (same) {
                        return true;
                    }
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            }
            return false;
        }, System::nanoTime, start + budget.toNanos());
        ExplorerSchedule shrunk = whole.with(items);
        Path file = DIR.resolve("process-seed-" + failed.seed() + "-shrunk.txt").toAbsolutePath();
        Files.writeString(file, shrunk.text());
        System.out.printf("[shrink] seed %d: %d -> %d items (operations %d -> %d, faults %d -> %d) in %d s, %d runs%n"
                + "[shrink] replay: %s -Dexplorer.process.schedule=%s%s%n", failed.seed(), whole.items().size(),
                items.size(), whole.opCount(), shrunk.opCount(), whole.faultCount(), shrunk.faultCount(),
                (System.nanoTime() - start) / 1_000_000_000L, runs[0], COMMAND, file,
                this.core == null ? "" : " -Dexplorer.process.core=" + this.core);
        if (items.size() <= 30) {
            System.out.print(shrunk.text());
        }
        return items;
    }

    /** The kind of a process-mode violation, for the shrinker. */
    static String kind(String violation) {
        for (String phrase : List.of("lost silently", "within the restart grace", "without the waiter being woken",
                "refused while it held", "permits held at once", "both believed they held", "granted twice",
                "granted before it was asked", "after every handle was released", "died", "still busy")) {
            if (violation.contains(phrase)) {
                return phrase;
            }
        }
        return ExplorerShrinker.kind(violation);
    }
}
