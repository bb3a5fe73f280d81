package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.reliability.mixed.PreviousEngine;

/**
 * The fault explorer's bounded run, part of the test command: a few fixed seeds of seeded operations and wire faults
 * (about 60 s in all), each checked for every invariant of docs/fault-explorer.md. A failure names the seed, shows the
 * history before the first violation and the command that replays it.
 */
class ExplorerBoundedTest {

    /** Fixed seeds, each 12 s of client work; seed 4 runs in quorum mode over three masters. */
    private static final long[] SEEDS = { 1, 2, 4 };

    /** A shorter seed in mixed mode: its second service runs the previous layout's code. */
    private static final long MIXED_SEED = 3;

    @Test
    void fixedSeedsKeepEveryInvariant() throws Exception {
        ExplorerSoak soak = new ExplorerSoak("all", 12, "some", "never");
        ExplorerSoak mixed = new ExplorerSoak("all", 10, "never", "always");
        long start = System.nanoTime();
        List<String> reports = new ArrayList<>();
        for (long seed : SEEDS) {
            ExplorerResult result = soak.runSeed(seed);
            if (result.failed()) {
                reports.add(soak.report(result, 0));
            }
        }
        long mixedStart = System.nanoTime();
        ExplorerResult result = mixed.runSeed(MIXED_SEED);
        assertThat(result.mixed()).isTrue();
        if (result.failed()) {
            reports.add(mixed.report(result, 0));
        }
        System.out.println(soak.summary(java.time.Duration.ofNanos(mixedStart - start)));
        System.out.println(mixed.summary(java.time.Duration.ofNanos(System.nanoTime() - mixedStart)));
        PreviousEngine previous = PreviousEngine.load();
        System.out.println("[explorer] mixed seed: the previous layout's code (" + previous.commit() + ") built in "
                + previous.buildMillis() + " ms");
        assertThat(reports).as("explorer failures").isEmpty();
    }
}
