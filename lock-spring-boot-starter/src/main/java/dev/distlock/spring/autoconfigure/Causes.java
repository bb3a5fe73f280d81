package dev.distlock.spring.autoconfigure;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/** Searches a startup failure's causes and their suppressed exceptions, which is where Redis's reason ends up. */
final class Causes {

    private Causes() {
    }

    /** The first of {@code failure}, its causes and suppressed exceptions (breadth first) that matches, or null. */
    static @Nullable Throwable find(Throwable failure, Predicate<Throwable> matches) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> pending = new ArrayDeque<>();
        pending.add(failure);
        while (!pending.isEmpty()) {
            Throwable next = pending.poll();
            if (!seen.add(next)) {
                continue;
            }
            if (matches.test(next)) {
                return next;
            }
            if (next.getCause() != null) {
                pending.add(next.getCause());
            }
            Collections.addAll(pending, next.getSuppressed());
        }
        return null;
    }
}
