package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fault explorer's soak, behind its own command (see docs/fault-explorer.md):
 * {@code mvn -B -ntp -pl lock-reliability-tests -am verify -Dtest=ExplorerSoakTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dexcluded.test.groups=none -Dexplorer.minutes=15}.
 */
@Tag("soak")
class ExplorerSoakTest {

    @Test
    void seededRunsFindNoViolation() throws Exception {
        List<ExplorerResult> failed = ExplorerSoak.fromProperties().soak();
        assertThat(failed).as("failed seeds (see the reports above)").isEmpty();
    }
}
