package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a history of critical sections for the two properties a lock must keep under any fault:
 * <ol>
 * <li>no two sections overlap in time while both holders believed themselves valid at the end;</li>
 * <li>the fencing tokens a guarded resource accepted, in the order it accepted them, strictly increase.</li>
 * </ol>
 * A section whose holder learned it had lost the lease ({@code validAtEnd} false) may overlap another: that is the
 * case the fencing check exists for.
 */
final class HistoryChecker {

    private HistoryChecker() {
    }

    /** Every overlap of two sections whose holders both believed they were valid. */
    static List<String> overlaps(List<Section> history) {
        List<Section> valid = new ArrayList<>();
        for (Section section : history) {
            if (section.validAtEnd()) {
                valid.add(section);
            }
        }
        valid.sort(Comparator.comparingLong(Section::startNanos));
        List<String> violations = new ArrayList<>();
        Section latest = null; // the valid section seen so far that ends last
        for (Section section : valid) {
            if (section.endNanos() < section.startNanos()) {
                violations.add("section ends before it starts: " + section);
                continue;
            }
            if (latest != null && section.startNanos() < latest.endNanos()) {
                violations.add("overlap: " + latest + " and " + section);
            }
            if (latest == null || section.endNanos() > latest.endNanos()) {
                latest = section;
            }
        }
        return violations;
    }

    /** Every accepted token that does not exceed the one accepted before it. */
    static List<String> nonIncreasingTokens(List<Long> acceptedInOrder) {
        List<String> violations = new ArrayList<>();
        for (int i = 1; i < acceptedInOrder.size(); i++) {
            if (acceptedInOrder.get(i) <= acceptedInOrder.get(i - 1)) {
                violations.add("token " + acceptedInOrder.get(i) + " accepted after " + acceptedInOrder.get(i - 1)
                        + " (position " + i + ")");
            }
        }
        return violations;
    }

    /** Both checks together. */
    static List<String> violations(List<Section> history, List<Long> acceptedInOrder) {
        List<String> violations = new ArrayList<>(overlaps(history));
        violations.addAll(nonIncreasingTokens(acceptedInOrder));
        return violations;
    }
}
