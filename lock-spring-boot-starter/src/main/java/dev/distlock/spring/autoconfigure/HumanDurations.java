package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.Locale;

/** Durations as people write them in messages: {@code 250 ms}, {@code 5.0 s}, {@code 2 min 5 s}, {@code 3 h 0 min}. */
final class HumanDurations {

    private HumanDurations() {
    }

    static String format(Duration duration) {
        if (duration == null) {
            return "null";
        }
        if (duration.isNegative()) {
            return "-" + format(duration.negated());
        }
        long millis = duration.toMillis();
        if (millis < 1000) {
            return (duration.toNanos() % 1_000_000 == 0 || millis >= 10) ? millis + " ms"
                    : String.format(Locale.ROOT, "%.3f ms", duration.toNanos() / 1e6);
        }
        if (millis < 60_000) {
            return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        if (millis < 3_600_000) {
            return duration.toMinutes() + " min " + duration.toSecondsPart() + " s";
        }
        if (millis < 86_400_000) {
            return duration.toHours() + " h " + duration.toMinutesPart() + " min";
        }
        return duration.toDays() + " d " + duration.toHoursPart() + " h";
    }
}
