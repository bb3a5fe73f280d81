package dev.distlock.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Shrinks a failing run: from the schedule it performed ({@link ExplorerSchedule}), a shorter list of operations and
 * faults that still fails with the same kind of violation, found by delta debugging (ddmin: drop chunks, then their
 * complements, halving the chunks until no single item can go). Threads are not seeded, so each candidate is run up
 * to {@code tries} times and counts as failing if any try does; the search stops when its time budget is spent and
 * keeps the smallest failing schedule found so far.
 */
final class ExplorerShrinker {

    private final int tries;

    private final Duration budget;

    private int runs;

    ExplorerShrinker(int tries, Duration budget) {
        this.tries = tries;
        this.budget = budget;
    }

    /**
     * The shrunk schedule of a failed run (its own schedule when no smaller one failed, or when the whole schedule
     * failed in none of its tries), written to {@code directory}; prints the sizes and the replay command.
     */
    ExplorerSchedule shrink(ExplorerResult failed, Path directory, String replayPrefix) throws IOException {
        long start = System.nanoTime();
        long deadline = start + this.budget.toNanos();
        ExplorerSchedule whole = failed.schedule();
        String kind = kind(failed.violations().get(0));
        System.out.printf("[shrink] seed %d: %d operations and %d faults, first violation of kind '%s'%n",
                failed.seed(), whole.opCount(), whole.faultCount(), kind);
        ExplorerSchedule shrunk = whole;
        if (!fails(whole, kind)) {
            System.out.printf("[shrink] seed %d: its schedule replayed %d times without that violation; not shrunk%n",
                    failed.seed(), this.tries);
        }
        else {
            List<ExplorerSchedule.Item> items = ddmin(whole.items(), candidate -> fails(whole.with(candidate), kind),
                    System::nanoTime, deadline);
            shrunk = whole.with(items);
        }
        Files.createDirectories(directory);
        Path file = directory.resolve("seed-" + failed.seed() + "-shrunk.txt").toAbsolutePath();
        Files.writeString(file, shrunk.text());
        System.out.printf("[shrink] seed %d: %d -> %d items (operations %d -> %d, faults %d -> %d) in %d s, %d runs"
                + "%n[shrink] schedule: %s%n[shrink] replay: %s -Dexplorer.schedule=%s%n", failed.seed(),
                whole.items().size(), shrunk.items().size(), whole.opCount(), shrunk.opCount(), whole.faultCount(),
                shrunk.faultCount(), (System.nanoTime() - start) / 1_000_000_000L, this.runs, file, replayPrefix, file);
        if (shrunk.items().size() <= 30) {
            System.out.print(shrunk.text());
        }
        return shrunk;
    }

    /** Whether this schedule fails with a violation of this kind in one of its tries. */
    private boolean fails(ExplorerSchedule schedule, String kind) {
        for (int i = 0; i < this.tries; i++) {
            this.runs++;
            ExplorerResult result;
            try {
                result = new ExplorerRun(schedule).run();
            }
            catch (Exception ex) {
                throw new IllegalStateException("a replay of seed " + schedule.seed() + " could not run", ex);
            }
            boolean same = result.violations().stream().anyMatch(v -> kind(v).equals(kind));
            System.out.printf("[shrink]   %d items (%d operations): %s%n", schedule.items().size(), schedule.opCount(),
                    same ? "fails the same way" : result.failed() ? "fails otherwise" : "passes");
            if (same) {
                return true;
            }
        }
        return false;
    }

    /**
     * Delta debugging (Zeller's ddmin): a sublist of {@code items}, in their order, for which {@code fails} holds,
     * assuming it holds for {@code items}; 1-minimal (no single item can be dropped) unless the clock passes
     * {@code deadline}, when the smallest failing list found so far is returned. No test starts after the deadline.
     */
    static <T> List<T> ddmin(List<T> items, Predicate<List<T>> fails, LongSupplier clock, long deadline) {
        List<T> current = new ArrayList<>(items);
        int granularity = 2;
        while (current.size() >= 2) {
            List<List<T>> chunks = split(current, granularity);
            boolean reduced = false;
            for (List<T> chunk : chunks) {
                if (clock.getAsLong() - deadline >= 0) {
                    return current;
                }
                if (fails.test(chunk)) {
                    current = chunk;
                    granularity = 2;
                    reduced = true;
                    break;
                }
            }
            if (!reduced && granularity > 2) { // with two chunks, each complement is the other chunk
                for (int i = 0; i < chunks.size(); i++) {
                    if (clock.getAsLong() - deadline >= 0) {
                        return current;
                    }
                    List<T> complement = new ArrayList<>();
                    for (int j = 0; j < chunks.size(); j++) {
                        if (j != i) {
                            complement.addAll(chunks.get(j));
                        }
                    }
                    if (fails.test(complement)) {
                        current = complement;
                        granularity = Math.max(granularity - 1, 2);
                        reduced = true;
                        break;
                    }
                }
            }
            if (!reduced) {
                if (granularity >= current.size()) {
                    return current;
                }
                granularity = Math.min(2 * granularity, current.size());
            }
        }
        return current;
    }

    private static <T> List<List<T>> split(List<T> items, int parts) {
        List<List<T>> chunks = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < parts; i++) {
            int to = from + (items.size() - from) / (parts - i);
            chunks.add(new ArrayList<>(items.subList(from, to)));
            from = to;
        }
        return chunks;
    }

    /**
     * The kind of a violation: the invariant it breaks, without the keys, owners, tokens and times that differ
     * between runs (every word with a digit in it, and the call that released).
     */
    static String kind(String violation) {
        String[] phrases = { "both believed they held", "reported a lost lease although",
            "completed as a clean release", "after its release had completed", "more than its bound",
            "did not complete within its bound", "permits were free", "without the waiter being woken",
            "after every handle was released", "could not take a free",
            "still pending", "after close() failed", "following close()", "library threads left",
            "left in Redis with a PTTL", "died", "still busy", "was granted no lock", "refused the entry",
            "had run out", "holders valid at the end", "holders never told of a loss" };
        for (String phrase : phrases) {
            if (violation.contains(phrase)) {
                return phrase;
            }
        }
        String general = violation.replaceAll("\\S*\\d\\S*", "#");
        return general.length() > 80 ? general.substring(0, 80) : general;
    }
}
