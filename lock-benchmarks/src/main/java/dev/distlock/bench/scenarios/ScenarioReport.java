package dev.distlock.bench.scenarios;

import java.util.Map;

import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.Measurement;

/**
 * A scenario's section of the report, and its figures for the target assessment.
 *
 * @param markdown the table and notes
 * @param measurements per implementation, for timed scenarios
 * @param renewals per implementation, for the watchdog scenario
 */
public record ScenarioReport(Scenario scenario, String markdown, Map<Implementation, Measurement> measurements,
        Map<Implementation, RenewalResult> renewals) {
}
