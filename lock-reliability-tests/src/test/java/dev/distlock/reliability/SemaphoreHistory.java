package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * The history checks of a semaphore, the counterpart of {@link HistoryChecker} for locks: holders may overlap, but at
 * no instant may the permits of overlapping valid holders add up to more than the limit; and every grant has a fencing
 * token of its own, higher than that of every grant that completed before it was asked for.
 */
final class SemaphoreHistory {

    private SemaphoreHistory() {
    }

    /**
     * One span in which a holder held permits as far as it knew (nanoTime readings).
     *
     * @param holder who held them
     * @param token the grant's fencing token
     * @param permits how many permits the grant took
     * @param startNanos from (after the grant's reply)
     * @param endNanos to (before the release was sent)
     */
    record Span(String holder, long token, int permits, long startNanos, long endNanos) {
    }

    /**
     * One grant as its caller saw it.
     *
     * @param holder who asked
     * @param token its fencing token
     * @param askedNanos when the call was made
     * @param grantedNanos when the grant's reply came
     */
    record Grant(String holder, long token, long askedNanos, long grantedNanos) {
    }

    /**
     * The first instant at which the permits of the given spans add up to more than {@code limit}, with the spans
     * open then; empty when there is none. A span that ends when another starts does not overlap it.
     */
    static List<String> overLimit(List<Span> spans, int limit) {
        return overLimit(spans, limit, nanos -> nanos + " ns");
    }

    /** {@link #overLimit(List, int)}, with the times of the spans written by {@code time}. */
    static List<String> overLimit(List<Span> spans, int limit, LongFunction<String> time) {
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(Span::startNanos));
        List<Span> open = new ArrayList<>();
        for (Span span : sorted) {
            open.removeIf(earlier -> earlier.endNanos() <= span.startNanos());
            open.add(span);
            int permits = open.stream().mapToInt(Span::permits).sum();
            if (permits > limit) {
                StringBuilder text = new StringBuilder(permits + " permits held at once (limit " + limit + "):");
                for (Span holder : open) {
                    text.append(' ').append(holder.holder()).append(" (").append(holder.permits())
                        .append(holder.permits() == 1 ? " permit" : " permits").append(", token ")
                        .append(holder.token()).append(", ").append(time.apply(holder.startNanos())).append(" to ")
                        .append(time.apply(holder.endNanos())).append(')');
                }
                return List.of(text.toString());
            }
        }
        return List.of();
    }

    /** When the permits of the given spans first add up to more than {@code limit} (nanoTime), or -1. */
    static long firstOverLimitNanos(List<Span> spans, int limit) {
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(Span::startNanos));
        List<Span> open = new ArrayList<>();
        for (Span span : sorted) {
            open.removeIf(earlier -> earlier.endNanos() <= span.startNanos());
            open.add(span);
            if (open.stream().mapToInt(Span::permits).sum() > limit) {
                return span.startNanos();
            }
        }
        return -1;
    }

    /** The most permits the given spans held at one instant. */
    static int mostAtOnce(List<Span> spans) {
        List<Span> sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparingLong(Span::startNanos));
        List<Span> open = new ArrayList<>();
        int most = 0;
        for (Span span : sorted) {
            open.removeIf(earlier -> earlier.endNanos() <= span.startNanos());
            open.add(span);
            most = Math.max(most, open.stream().mapToInt(Span::permits).sum());
        }
        return most;
    }

    /** Tokens shared by two grants, and tokens not above one granted before the call that got them was made. */
    static List<String> tokenOrder(List<Grant> grants) {
        List<String> violations = new ArrayList<>();
        Map<Long, Grant> byToken = new HashMap<>();
        for (Grant grant : grants) {
            Grant other = byToken.putIfAbsent(grant.token(), grant);
            if (other != null) {
                violations.add("token " + grant.token() + " granted twice: to " + other.holder() + " and "
                        + grant.holder());
            }
        }
        List<Grant> byGranted = new ArrayList<>(grants);
        byGranted.sort(Comparator.comparingLong(Grant::grantedNanos));
        List<Grant> byAsked = new ArrayList<>(grants);
        byAsked.sort(Comparator.comparingLong(Grant::askedNanos));
        int next = 0;
        Grant highest = null; // of the grants whose reply came before the current call was made
        for (Grant grant : byAsked) {
            while (next < byGranted.size() && byGranted.get(next).grantedNanos() < grant.askedNanos()) {
                Grant done = byGranted.get(next++);
                if (highest == null || done.token() > highest.token()) {
                    highest = done;
                }
            }
            if (highest != null && grant.token() <= highest.token()) {
                violations.add("token " + grant.token() + " of " + grant.holder() + " not above token "
                        + highest.token() + " of " + highest.holder() + ", granted before it was asked for");
            }
        }
        return violations;
    }
}
