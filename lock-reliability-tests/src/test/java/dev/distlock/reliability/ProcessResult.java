package dev.distlock.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one run of the explorer's process mode found.
 *
 * @param seed its seed
 * @param violations what broke (empty when clean)
 * @param schedule what it performed, for a replay or the shrinker
 * @param grants the grants its clients reported
 * @param refusals the calls that got nothing
 * @param faultsByKind the faults that ran, by kind
 * @param faultsRan how many of the scheduled faults ran
 * @param checks the invariant checks made
 * @param wakeUpsJudged the calls left waiting 2.5 s or more with a calm stretch in their wait (the wake-up check's)
 * @param took how long it took
 */
record ProcessResult(long seed, List<String> violations, ExplorerSchedule schedule, int grants, int refusals,
        Map<String, Integer> faultsByKind, int faultsRan, int checks, int wakeUpsJudged, Duration took) {

    boolean failed() {
        return !this.violations.isEmpty();
    }
}
