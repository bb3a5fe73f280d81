package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The history of the explorer's process mode, merged from the reports of every client process
 * ({@link ProcessClientMain}'s lines) and the faults the parent injected, all on one clock: {@link System#nanoTime()},
 * which on Linux reads CLOCK_MONOTONIC, one clock for every process of the host (not per process; what the merge
 * relies on). It decides, conservatively, over which interval each grant counts as held ({@link #validUntil}):
 * a violation is claimed only where one is certain.
 */
final class ProcessHistory {

    /** How far a lease deadline read back from an {@code Instant} may be off (ns). */
    static final long TOLERANCE = 5_000_000;

    /** One grant, with what its process reported about it; null fields were not reported. */
    static final class Hold {
        final String process;
        final long id;
        final String key;
        final int permits;
        final long token;
        final long asked;
        final long granted;
        final long leaseMillis;
        final List<long[]> deadlines = new ArrayList<>(); // {reported at, deadline}
        Long end;
        boolean heldAtEnd;
        Long lost;
        Long writeAt;
        boolean accepted;
        Long releaseSent;
        Long releaseDone;
        String outcome;

        Hold(String process, long id, String key, int permits, long token, long asked, long granted, long leaseMillis) {
            this.process = process;
            this.id = id;
            this.key = key;
            this.permits = permits;
            this.token = token;
            this.asked = asked;
            this.granted = granted;
            this.leaseMillis = leaseMillis;
        }

        String name() {
            return this.process + "#" + this.id + "(" + this.key + ", token " + this.token + ")";
        }

        /** The earliest the lease first granted can end in Redis: it started no earlier than the call. */
        long firstDeadline() {
            long lease = this.leaseMillis == 0 ? ProcessClientMain.WATCHDOG_LEASE.toMillis() : this.leaseMillis;
            return this.asked + lease * 1_000_000;
        }
    }

    /** A call that got nothing: its key, permits, when asked and when it gave up, and why. */
    record Refusal(String process, String key, int permits, long asked, long ended, String reason) {
    }

    /**
     * A fault: {@code kill} and {@code stop} of a client process (target is its name; a kill's {@code to} is when the
     * process was gone), {@code redis-pause}, and {@code redis-restart} ({@code from} once the old process was dead,
     * {@code to} when the new one was started: it is no older than that).
     */
    record Fault(String kind, String target, long from, long to) {
    }

    final List<Hold> holds = new ArrayList<>();

    final List<Refusal> refusals = new ArrayList<>();

    final List<Fault> faults = new ArrayList<>();

    final List<String> malformed = new ArrayList<>();

    private final Map<String, Map<Long, Hold>> byProcess = new LinkedHashMap<>();

    /** Adds one process's report lines (its name unique per process, e.g. {@code c1g0}). */
    void addProcess(String process, List<String> lines) {
        Map<Long, Hold> mine = this.byProcess.computeIfAbsent(process, p -> new HashMap<>());
        for (String line : lines) {
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "G" -> {
                        Hold hold = new Hold(process, Long.parseLong(f[1]), f[2], Integer.parseInt(f[3]),
                                Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]));
                        mine.put(hold.id, hold);
                        this.holds.add(hold);
                    }
                    case "N" -> this.refusals.add(new Refusal(process, f[1], Integer.parseInt(f[2]),
                            Long.parseLong(f[3]), Long.parseLong(f[4]), f[5]));
                    case "D" -> hold(mine, f[1]).deadlines
                        .add(new long[] { Long.parseLong(f[2]), Long.parseLong(f[3]) });
                    case "L" -> hold(mine, f[1]).lost = Long.parseLong(f[2]);
                    case "A" -> {
                        Hold hold = hold(mine, f[1]);
                        hold.writeAt = Long.parseLong(f[2]);
                        hold.accepted = f[3].equals("accepted");
                    }
                    case "E" -> {
                        Hold hold = hold(mine, f[1]);
                        hold.end = Long.parseLong(f[2]);
                        hold.heldAtEnd = Boolean.parseBoolean(f[3]);
                        hold.deadlines.add(new long[] { hold.end, Long.parseLong(f[4]) });
                    }
                    case "R" -> {
                        Hold hold = hold(mine, f[1]);
                        hold.releaseSent = Long.parseLong(f[2]);
                        hold.releaseDone = Long.parseLong(f[3]);
                        hold.outcome = f[4];
                    }
                    default -> {
                        // O (the schedule's), READY, DONE, and whatever else the JVM printed
                    }
                }
            }
            catch (RuntimeException ex) {
                this.malformed.add(process + ": " + line);
            }
        }
    }

    private static Hold hold(Map<Long, Hold> holds, String id) {
        Hold hold = holds.get(Long.parseLong(id));
        if (hold == null) {
            throw new IllegalArgumentException("no grant " + id);
        }
        return hold;
    }

    void addFault(Fault fault) {
        this.faults.add(fault);
    }

    /** When the hold's process was killed, if it was killed before it released; else null. */
    Long killedAt(Hold hold) {
        for (Fault fault : this.faults) {
            if (fault.kind().equals("kill") && fault.target().equals(hold.process)) {
                return fault.from();
            }
        }
        return null;
    }

    /** The first stop of the hold's process within [from, to], or null. */
    Long stoppedWithin(Hold hold, long from, long to) {
        for (Fault fault : this.faults) {
            if (fault.kind().equals("stop") && fault.target().equals(hold.process) && fault.from() >= from
                    && fault.from() <= to) {
                return fault.from();
            }
        }
        return null;
    }

    /**
     * Until when (nanoTime) this grant certainly counts as held, or a value before {@code granted} when it never
     * counts (its holder learned of a loss before any section). It runs from the grant's reply to the holder's last
     * belief (the section's end while {@code isHeld()}, or when it was told of a loss), cut at the earliest its lease
     * can have ended in Redis: the highest deadline its process had reported before it was killed or stopped (a
     * killed holder's section counts until then; a stopped one's until it is told or then), never below the first
     * lease's end counted from the call.
     */
    long validUntil(Hold hold) {
        Long killed = killedAt(hold);
        long belief;
        if (hold.end != null) {
            belief = hold.heldAtEnd ? hold.end : hold.lost != null ? Math.min(hold.lost, hold.end) : hold.granted - 1;
        }
        else if (killed != null) {
            belief = hold.lost != null ? hold.lost : Long.MAX_VALUE;
        }
        else {
            belief = hold.lost != null ? hold.lost : hold.granted - 1; // still running when the run ended: not judged
        }
        long cut = belief;
        Long stopped = stoppedWithin(hold, hold.granted, belief);
        if (stopped != null) {
            cut = stopped;
        }
        if (killed != null && killed < cut) {
            cut = killed;
        }
        long deadline = hold.firstDeadline();
        for (long[] reported : hold.deadlines) {
            if (reported[0] <= cut) {
                deadline = Math.max(deadline, reported[1]);
            }
        }
        return Math.min(belief, deadline - TOLERANCE);
    }
}
