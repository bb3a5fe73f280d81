package dev.distlock.bench.scenarios;

import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.Measurement;

/** The lines under a table: which commands made up the counts, and anything that went wrong. */
final class Notes {

    private Notes() {
    }

    /** The command mix per cycle, most frequent first, e.g. {@code evalsha 2.00, hget 3.00}. */
    static String commandMix(Implementation implementation, Measurement measurement) {
        long cycles = measurement.cycles();
        if (cycles == 0) {
            return "";
        }
        return "- " + implementation.label() + " commands per cycle: "
                + perUnit(measurement.server().calls(), cycles) + String.format(Locale.ROOT,
                        "; Redis spent %.1f µs per cycle running scripts; JVM garbage collection %d ms over the "
                                + "measured iterations",
                        measurement.scriptMicrosPerCycle(), measurement.gcMillis())
                + "\n";
    }

    /** Counts divided by {@code units}, most frequent first. */
    static String perUnit(Map<String, Long> counts, double units) {
        if (counts.isEmpty()) {
            return "none";
        }
        return counts.entrySet()
            .stream()
            .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
            .map(entry -> String.format(Locale.ROOT, "%s %.2f", entry.getKey(), entry.getValue() / units))
            .collect(Collectors.joining(", "));
    }

    /** What the client itself reported, if anything. */
    static String diagnostics(Implementation implementation, dev.distlock.bench.clients.LockClient client) {
        String diagnostics = client.diagnostics();
        return diagnostics.isEmpty() ? "" : "- " + implementation.label() + ": " + diagnostics + "\n";
    }

    /** Errors and exclusivity violations, which no table hides. */
    static String problems(Implementation implementation, Measurement measurement) {
        if (measurement.errors() == 0 && measurement.violations() == 0) {
            return "";
        }
        return "- **" + implementation.label() + ": " + measurement.errors() + " failed cycles, "
                + measurement.violations() + " times two holders at once**; first error: " + measurement.firstError()
                + "\n";
    }
}
