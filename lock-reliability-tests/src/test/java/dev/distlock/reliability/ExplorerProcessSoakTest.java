package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The process mode's soak and replays, behind their own command (see docs/fault-explorer.md):
 * {@code mvn -B -ntp -pl lock-reliability-tests -am verify -Dtest=ExplorerProcessSoakTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dexcluded.test.groups=none -Dexplorer.process.minutes=30}.
 */
@Tag("soak")
class ExplorerProcessSoakTest {

    @Test
    void seededProcessRunsFindNoViolation() throws Exception {
        List<ProcessResult> failed = new ProcessSoak().soak();
        assertThat(failed).as("failed seeds (see the reports above)").isEmpty();
    }
}
