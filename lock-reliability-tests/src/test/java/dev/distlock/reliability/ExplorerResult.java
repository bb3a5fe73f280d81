package dev.distlock.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one seeded run found.
 *
 * @param seed the seed
 * @param quorum whether the run was in quorum mode
 * @param mixed whether its last service ran the previous layout's code
 * @param took how long the run took, set-up and end checks included
 * @param operations operations run, per kind
 * @param faults faults injected, per kind
 * @param checks invariant checks made
 * @param violations what broke, in the order found
 * @param excerpt the events before the first violation
 * @param schedule the operations and faults it performed, for a replay or the shrinker
 */
record ExplorerResult(long seed, boolean quorum, boolean mixed, Duration took, Map<String, Long> operations,
        Map<String, Long> faults, long checks, List<String> violations, List<String> excerpt,
        ExplorerSchedule schedule) {

    boolean failed() {
        return !this.violations.isEmpty();
    }
}
