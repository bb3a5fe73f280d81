package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one explorer run did and saw: a ring of the latest events (for the history excerpt printed with a failure),
 * counters of operations, faults and invariant checks, the violations found, and the time windows that the
 * wake-up check needs (when each key may have been held, when a fault was active, when a caller waited).
 */
final class ExplorerJournal {

    private static final int RING = 6000;

    private final long startNanos = System.nanoTime();

    private final String[] ring = new String[RING];

    private long logged;

    private final Map<String, LongAdder> operations = new ConcurrentHashMap<>();

    private final Map<String, LongAdder> faults = new ConcurrentHashMap<>();

    private final LongAdder checks = new LongAdder();

    private final List<String> violations = new ArrayList<>();

    private List<String> excerpt = List.of();

    /** Per key, the windows [from, to] in which the lock may have been held by someone (nanoTime). */
    private final Map<String, List<long[]>> busy = new ConcurrentHashMap<>();

    private final List<long[]> faultWindows = new ArrayList<>();

    /** Waits of single-key acquisitions: key, from, to, and what waited. */
    private final List<Object[]> waits = new ArrayList<>();

    long millis(long nanos) {
        return (nanos - this.startNanos) / 1_000_000;
    }

    void log(String event) {
        String line = String.format("%6d ms %-22s %s", millis(System.nanoTime()), Thread.currentThread().getName(),
                event);
        synchronized (this.ring) {
            this.ring[(int) (this.logged++ % RING)] = line;
        }
    }

    /** The latest {@code lines} events, oldest first. */
    List<String> tail(int lines) {
        synchronized (this.ring) {
            List<String> tail = new ArrayList<>();
            for (long i = Math.max(0, this.logged - Math.min(lines, RING)); i < this.logged; i++) {
                tail.add(this.ring[(int) (i % RING)]);
            }
            return tail;
        }
    }

    void operation(String kind) {
        this.operations.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    void fault(String kind, long fromNanos, long toNanos) {
        this.faults.computeIfAbsent(kind, k -> new LongAdder()).increment();
        synchronized (this.faultWindows) {
            this.faultWindows.add(new long[] { fromNanos, toNanos });
        }
    }

    void checked() {
        this.checks.increment();
    }

    void checked(long count) {
        this.checks.add(count);
    }

    void violation(String text) {
        violation(text, Long.MAX_VALUE);
    }

    /**
     * A violation found after the fact (by a history check) at the instant {@code atNanos}: its excerpt ends shortly
     * after that instant rather than at the end of the run.
     */
    void violation(String text, long atNanos) {
        log("VIOLATION " + text);
        synchronized (this.violations) {
            if (this.violations.isEmpty()) {
                this.excerpt = excerptFor(text, atNanos == Long.MAX_VALUE ? Long.MAX_VALUE : millis(atNanos) + 300);
            }
            this.violations.add(text);
        }
    }

    /** The latest events about the key the violation names (and the faults among them), else the latest events. */
    private List<String> excerptFor(String violation, long untilMillis) {
        for (String key : ExplorerRun.tracedKeys()) {
            if (violation.contains(key)) {
                List<String> lines = new ArrayList<>();
                for (String line : tail(RING)) {
                    if ((line.contains(key) || line.contains("FAULT") || line.contains("VIOLATION"))
                            && Long.parseLong(line.substring(0, 6).trim()) <= untilMillis) {
                        lines.add(line);
                    }
                }
                return lines.subList(Math.max(0, lines.size() - 40), lines.size());
            }
        }
        return tail(40);
    }

    List<String> violations() {
        synchronized (this.violations) {
            return new ArrayList<>(this.violations);
        }
    }

    /** The events up to the first violation. */
    List<String> excerpt() {
        synchronized (this.violations) {
            return this.excerpt;
        }
    }

    void busy(String key, long fromNanos, long toNanos) {
        List<long[]> windows = this.busy.computeIfAbsent(key, k -> new ArrayList<>());
        synchronized (windows) {
            windows.add(new long[] { fromNanos, toNanos });
        }
    }

    void waited(String key, long fromNanos, long toNanos, String what) {
        synchronized (this.waits) {
            this.waits.add(new Object[] { key, fromNanos, toNanos, what });
        }
    }

    /**
     * The wake-up invariant: no caller waited for a key through a stretch of {@code limitNanos} or more in which
     * nobody may have held the key and no fault was active. Such a stretch means a freed lock did not wake its waiter.
     */
    void checkWakeUps(long limitNanos) {
        List<Object[]> allWaits;
        synchronized (this.waits) {
            allWaits = new ArrayList<>(this.waits);
        }
        List<long[]> blocked = new ArrayList<>();
        synchronized (this.faultWindows) {
            blocked.addAll(this.faultWindows);
        }
        for (Object[] wait : allWaits) {
            String key = (String) wait[0];
            long from = (Long) wait[1];
            long to = (Long) wait[2];
            checked();
            List<long[]> windows = new ArrayList<>(blocked);
            List<long[]> keyBusy = this.busy.getOrDefault(key, List.of());
            synchronized (keyBusy) {
                windows.addAll(keyBusy);
            }
            windows.sort((a, b) -> Long.compare(a[0], b[0]));
            long cursor = from;
            long gapStart = 0;
            long gap = 0;
            for (long[] window : windows) {
                if (window[1] <= cursor) {
                    continue;
                }
                if (window[0] >= to) {
                    break;
                }
                if (window[0] - cursor > gap) {
                    gap = window[0] - cursor;
                    gapStart = cursor;
                }
                cursor = Math.max(cursor, window[1]);
            }
            if (to - cursor > gap) {
                gap = to - cursor;
                gapStart = cursor;
            }
            if (gap >= limitNanos) {
                violation(String.format("%s waited for %s from %d ms to %d ms; the lock was free and no fault was "
                        + "active from %d ms for %d ms without the waiter being woken", wait[3], key, millis(from),
                        millis(to), millis(gapStart), gap / 1_000_000));
            }
        }
    }

    Map<String, Long> operationCounts() {
        return counts(this.operations);
    }

    Map<String, Long> faultCounts() {
        return counts(this.faults);
    }

    long checkCount() {
        return this.checks.sum();
    }

    private static Map<String, Long> counts(Map<String, LongAdder> adders) {
        Map<String, Long> counts = new TreeMap<>();
        adders.forEach((kind, adder) -> counts.put(kind, adder.sum()));
        return counts;
    }
}
