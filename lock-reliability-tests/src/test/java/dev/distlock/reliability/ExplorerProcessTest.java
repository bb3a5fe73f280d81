package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The process mode's share of the test command: one short fixed seed (about 16 s) whose faults kill a client process
 * with kill -9, stop one past its lease and restart Redis empty (see docs/fault-explorer.md; the long runs are
 * {@link ExplorerProcessSoakTest}'s).
 */
class ExplorerProcessTest {

    /** 10 s of client time; its faults: kill -9 at 1.1 s, Redis restarted empty at 4.5 s, a stop of 3.2 s at 6.3 s. */
    private static final long SEED = 51;

    @Test
    void aShortSeedOfKilledAndStoppedClientsAndAnEmptyRestartKeepsEveryInvariant() throws Exception {
        ProcessSoak soak = new ProcessSoak();
        ProcessResult result = soak.run(ProcessRun.seeded(SEED, 10));
        System.out.println(soak.report(result, result.took()));
        assertThat(result.faultsByKind()).as("the seed's faults ran").containsKeys("kill", "stop", "redis-restart");
        assertThat(result.grants()).as("grants judged").isGreaterThan(20);
        assertThat(result.violations()).as("violations of seed " + SEED + " (see the report above)").isEmpty();
    }
}
