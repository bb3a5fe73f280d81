package dev.distlock.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What a seeded run drew, as an explicit list a run can take instead of drawing it: each client operation (its
 * worker, when it started, the worker's random state when it started, which decides the whole operation) and each
 * scheduled fault (when, what, where, how long). A run given a schedule performs exactly these operations and faults,
 * each no earlier than its time, and ends after the last of them ({@link ExplorerRun}); the shrinker
 * ({@link ExplorerShrinker}) drops items from it.
 *
 * <p>Text form, one item a line (or {@code ;} between items, for a system property):
 * <pre>
 * schedule seed=5 seconds=20 faults=all quorum=false mixed=false
 * op s0w1 1234 9f3a0c11d2e4 acquire
 * fault 2345 reply-delay 1 50 600
 * </pre>
 * An op: service and worker, ms since the clients started, the random state in hex, and its kind (for reading only).
 * A fault: ms, kind, proxy or master index, and up to two durations in ms (see {@link ExplorerFaults}).
 *
 * @param seed the run's seed (its set-up and end checks draw from it as a seeded run does)
 * @param seconds the seeded run's client time (a replay stops by this, plus {@link #GRACE}, at the latest)
 * @param faults the run's fault kinds, as {@code explorer.faults} takes them
 * @param quorum whether in quorum mode
 * @param mixed whether in mixed mode
 * @param items the operations and faults, in time order
 */
record ExplorerSchedule(long seed, int seconds, String faults, boolean quorum, boolean mixed, List<Item> items) {

    /** How long past its seeded length a replay may run before it stops drawing on its lists. */
    static final Duration GRACE = Duration.ofSeconds(10);

    ExplorerSchedule {
        items = List.copyOf(items);
    }

    /** Short, for assertion messages (the items are in {@link #text()}). */
    @Override
    public String toString() {
        return "schedule of seed " + this.seed + ": " + opCount() + " operations, " + faultCount() + " faults";
    }

    /** The same run with only these items. */
    ExplorerSchedule with(List<Item> kept) {
        return new ExplorerSchedule(this.seed, this.seconds, this.faults, this.quorum, this.mixed, kept);
    }

    ExplorerSettings settings() {
        return ExplorerSettings.of(this.seed, Duration.ofSeconds(this.seconds), this.faults,
                this.quorum ? "always" : "never", this.mixed ? "always" : "never");
    }

    /** The operations of one worker, in order. */
    List<Op> ops(int service, int worker) {
        return this.items.stream().filter(Op.class::isInstance).map(Op.class::cast)
            .filter(op -> op.service() == service && op.worker() == worker).toList();
    }

    List<Fault> scheduledFaults() {
        return this.items.stream().filter(Fault.class::isInstance).map(Fault.class::cast).toList();
    }

    long opCount() {
        return this.items.stream().filter(Op.class::isInstance).count();
    }

    long faultCount() {
        return this.items.size() - opCount();
    }

    /** The text form, one item a line. */
    String text() {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT,
                "schedule seed=%d seconds=%d faults=%s quorum=%b mixed=%b%n", this.seed, this.seconds, this.faults,
                this.quorum, this.mixed));
        for (Item item : this.items) {
            text.append(item.text()).append('\n');
        }
        return text.toString();
    }

    /** A schedule from its text form ({@link #text()}, with newlines or {@code ;} between lines). */
    static ExplorerSchedule parse(String text) {
        String[] lines = text.strip().split("\\s*[\\n;]\\s*");
        String[] header = lines[0].trim().split("\\s+");
        if (!header[0].equals("schedule") || header.length != 6) {
            throw new IllegalArgumentException("explorer.schedule: the first line must be 'schedule seed=... "
                    + "seconds=... faults=... quorum=... mixed=...', but was '" + lines[0] + "'");
        }
        long seed = Long.parseLong(value(header[1], "seed"));
        int seconds = Integer.parseInt(value(header[2], "seconds"));
        String faults = value(header[3], "faults");
        boolean quorum = Boolean.parseBoolean(value(header[4], "quorum"));
        boolean mixed = Boolean.parseBoolean(value(header[5], "mixed"));
        List<Item> items = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i].trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            try {
                if (parts[0].equals("op") && parts.length == 5) {
                    int w = parts[1].indexOf('w');
                    if (!parts[1].startsWith("s") || w < 0) {
                        throw new IllegalArgumentException("worker must read sNwM");
                    }
                    items.add(new Op(Integer.parseInt(parts[1].substring(1, w)),
                            Integer.parseInt(parts[1].substring(w + 1)), Long.parseLong(parts[2]),
                            Long.parseUnsignedLong(parts[3], 16), parts[4]));
                }
                else if (parts[0].equals("fault") && parts.length == 6) {
                    items.add(new Fault(Long.parseLong(parts[1]), parts[2], Integer.parseInt(parts[3]),
                            Long.parseLong(parts[4]), Long.parseLong(parts[5])));
                }
                else {
                    throw new IllegalArgumentException("not 'op sNwM ms state kind' nor 'fault ms kind index a b'");
                }
            }
            catch (RuntimeException ex) {
                throw new IllegalArgumentException("explorer.schedule: line " + (i + 1) + " '" + line + "': "
                        + ex.getMessage(), ex);
            }
        }
        items.sort(Comparator.comparingLong(Item::atMillis));
        return new ExplorerSchedule(seed, seconds, faults, quorum, mixed, items);
    }

    /** The value of {@code explorer.schedule}: a file's path, or the text itself. */
    static ExplorerSchedule fromProperty(String value) throws IOException {
        return parse(value.strip().startsWith("schedule ") ? value : Files.readString(Path.of(value)));
    }

    private static String value(String pair, String name) {
        if (!pair.startsWith(name + "=")) {
            throw new IllegalArgumentException("explorer.schedule: expected " + name + "=..., got '" + pair + "'");
        }
        return pair.substring(name.length() + 1);
    }

    /** An operation or a fault, at its time in ms since the clients started. */
    sealed interface Item permits Op, Fault {

        long atMillis();

        String text();
    }

    /** One client operation: the worker's random state when it started decides it whole. */
    record Op(int service, int worker, long atMillis, long state, String kind) implements Item {

        @Override
        public String text() {
            return "op s" + this.service + "w" + this.worker + " " + this.atMillis + " " + Long.toHexString(this.state)
                    + " " + this.kind;
        }
    }

    /**
     * One scheduled fault: its kind, the proxy (wire faults) or master ({@code redis-pause}) it hits, and its
     * durations (reply-delay: window and delay; reply-drop: window; stall and redis-pause: length; reset: none).
     */
    record Fault(long atMillis, String kind, int target, long a, long b) implements Item {

        @Override
        public String text() {
            return "fault " + this.atMillis + " " + this.kind + " " + this.target + " " + this.a + " " + this.b;
        }
    }
}
