package dev.distlock.redis.lease;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** How a renewal round splits the watched holds into script calls: by group, then into batches of a bounded size. */
final class RenewalBatches {

    private RenewalBatches() {
    }

    /** Batches of at most {@code size} holds of one group each (one group: holds one call may cover). */
    static List<List<Hold>> of(Collection<Hold> holds, Function<Hold, Object> groupOf, int size) {
        Map<Object, List<Hold>> groups = new HashMap<>();
        for (Hold hold : holds) {
            groups.computeIfAbsent(groupOf.apply(hold), any -> new ArrayList<>()).add(hold);
        }
        List<List<Hold>> batches = new ArrayList<>();
        for (List<Hold> group : groups.values()) {
            List<Hold> batch = new ArrayList<>(size);
            for (Hold hold : group) {
                batch.add(hold);
                if (batch.size() == size) {
                    batches.add(batch);
                    batch = new ArrayList<>(size);
                }
            }
            if (!batch.isEmpty()) {
                batches.add(batch);
            }
        }
        return batches;
    }
}
