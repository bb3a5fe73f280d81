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

    /** Waits for permits of a semaphore: key, from, to, what waited, the limit, and the permits it needs free. */
    private final List<Object[]> permitWaits = new ArrayList<>();

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
        busy(key, fromNanos, toNanos, 0);
    }

    /** A window in which {@code permits} permits of a semaphore may have been held (0: all of them, or a lock). */
    void busy(String key, long fromNanos, long toNanos, int permits) {
        List<long[]> windows = this.busy.computeIfAbsent(key, k -> new ArrayList<>());
        synchronized (windows) {
            windows.add(new long[] { fromNanos, toNanos, permits });
        }
    }

    /** A wait for permits: owed a grant while at least {@code need} of the {@code limit} permits are free. */
    void permitsWaited(String key, long fromNanos, long toNanos, String what, int limit, int need) {
        synchronized (this.permitWaits) {
            this.permitWaits.add(new Object[] { key, fromNanos, toNanos, what, limit, need });
        }
    }

    /**
     * The semaphore wake-up invariant: no caller waited through a stretch of {@code limitNanos} or more in which the
     * permits it needed were free (counting every window in which permits may have been held) and no fault was active.
     */
    void checkPermitWakeUps(long limitNanos) {
        List<Object[]> allWaits;
        synchronized (this.permitWaits) {
            allWaits = new ArrayList<>(this.permitWaits);
        }
        List<long[]> blocked = new ArrayList<>();
        synchronized (this.faultWindows) {
            blocked.addAll(this.faultWindows);
        }
        for (Object[] wait : allWaits) {
            long from = (Long) wait[1];
            long to = (Long) wait[2];
            int limit = (Integer) wait[4];
            int need = (Integer) wait[5];
            checked();
            List<long[]> changes = new ArrayList<>(); // time, change of the permits possibly held
            for (long[] fault : blocked) {
                clip(changes, fault[0], fault[1], from, to, limit + 1);
            }
            List<long[]> keyBusy = this.busy.getOrDefault((String) wait[0], List.of());
            synchronized (keyBusy) {
                for (long[] window : keyBusy) {
                    clip(changes, window[0], window[1], from, to, window[2] == 0 ? limit : window[2]);
                }
            }
            changes.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(b[1], a[1]));
            long held = 0;
            long previous = from;
            long freeSince = -1;
            long gap = 0;
            long gapStart = 0;
            changes.add(new long[] { to, 0 });
            for (long[] change : changes) {
                if (change[0] > previous && held <= limit - need) {
                    freeSince = freeSince < 0 ? previous : freeSince;
                    if (change[0] - freeSince > gap) {
                        gap = change[0] - freeSince;
                        gapStart = freeSince;
                    }
                }
                else if (change[0] > previous) {
                    freeSince = -1;
                }
                held += change[1];
                previous = Math.max(previous, change[0]);
            }
            if (gap >= limitNanos) {
                violation(String.format("%s waited for %s from %d ms to %d ms; %d of its %d permits were free and no "
                        + "fault was active from %d ms for %d ms without the waiter being woken", wait[3], wait[0],
                        millis(from), millis(to), need, limit, millis(gapStart), gap / 1_000_000));
            }
        }
    }

    private static void clip(List<long[]> changes, long start, long end, long from, long to, long permits) {
        if (end > from && start < to) {
            changes.add(new long[] { Math.max(start, from), permits });
            changes.add(new long[] { Math.min(end, to), -permits });
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
