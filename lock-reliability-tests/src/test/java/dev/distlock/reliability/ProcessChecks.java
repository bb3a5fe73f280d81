package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

import dev.distlock.reliability.ProcessHistory.Fault;
import dev.distlock.reliability.ProcessHistory.Hold;
import dev.distlock.reliability.ProcessHistory.Refusal;

/**
 * The checks of the explorer's process mode over a merged {@link ProcessHistory}: mutual exclusion of the locks
 * ({@link HistoryChecker}) and the semaphore's limit ({@link SemaphoreHistory}) over the intervals
 * {@link ProcessHistory#validUntil} counts (so a killed holder's locks and permits must not be granted again before its
 * lease's end), tokens above every grant completed before the call, a valid holder's fenced write never refused, the
 * restart grace (a Redis restarted empty grants nothing until its process is {@code grace} old), no lease lost silently
 * (a grant from before a restart-empty, or a fixed lease released after it ran out, never releases clean), and no lost
 * wake-up in calm stretches.
 */
final class ProcessChecks {

    /** A free key (or enough free permits) with a caller waiting this long, in a calm stretch, is a lost wake-up. */
    static final long WAKE_UP_NANOS = 2_500_000_000L;

    /** How long a fault keeps a stretch from counting as calm after it ends. */
    static final long CALM_AFTER_NANOS = 2_000_000_000L;

    /** The same for the fair key after a client was killed or stopped: its waiters' queue places last 6 s. */
    static final long FAIR_CALM_AFTER_NANOS = 7_000_000_000L;

    /** The same after a Cluster failover: the clients see the new master within their refresh period (1 s). */
    static final long FAILOVER_CALM_AFTER_NANOS = 3_000_000_000L;

    private final ProcessHistory history;

    private final long graceNanos;

    private final LongFunction<String> time;

    private int checks;

    private int wakeUpsJudged;

    ProcessChecks(ProcessHistory history, long graceNanos, LongFunction<String> time) {
        this.history = history;
        this.graceNanos = graceNanos;
        this.time = time;
    }

    int checks() {
        return this.checks;
    }

    /** How many calls that waited 2.5 s or more (granted or not) did so, at least in part, in a calm stretch. */
    int wakeUpsJudged() {
        return this.wakeUpsJudged;
    }

    List<String> violations() {
        List<String> violations = new ArrayList<>(this.history.malformed);
        for (String key : ProcessOps.KEYS) {
            List<Hold> holds = this.history.holds.stream().filter(h -> h.key.equals(key)).toList();
            List<SemaphoreHistory.Grant> grants = new ArrayList<>();
            for (Hold hold : holds) {
                grants.add(new SemaphoreHistory.Grant(hold.name(), hold.token, hold.asked, hold.granted));
            }
            this.checks += holds.size();
            violations.addAll(SemaphoreHistory.tokenOrder(grants));
            if (key.equals(ProcessOps.SEMAPHORE)) {
                violations.addAll(SemaphoreHistory.overLimit(spans(holds), ProcessOps.LIMIT, this.time));
            }
            else {
                violations.addAll(HistoryChecker.overlaps(sections(holds)).stream()
                    .map(v -> key + ": both believed they held it: " + v).toList());
            }
        }
        for (Hold hold : this.history.holds) {
            this.checks++;
            if (hold.writeAt != null && !hold.accepted && hold.writeAt < validUntil(hold)) {
                violations.add(hold.name() + ": its fenced write at " + this.time.apply(hold.writeAt)
                        + " was refused while it held the lock");
            }
            String gone = "ok".equals(hold.outcome) && hold.lost == null ? lostSilently(hold) : null;
            if (gone != null) {
                violations.add(hold.name() + ": released clean at " + this.time.apply(hold.releaseSent)
                        + " although its lease was gone (a lease lost silently: " + gone + ")");
            }
        }
        violations.addAll(restartGrace());
        violations.addAll(wakeUps());
        return violations;
    }

    private long validUntil(Hold hold) {
        return this.history.validUntil(hold);
    }

    private List<Section> sections(List<Hold> holds) {
        List<Section> sections = new ArrayList<>();
        for (Hold hold : holds) {
            long until = validUntil(hold);
            if (until > hold.granted) {
                sections.add(new Section(hold.name() + " " + this.time.apply(hold.granted) + "-"
                        + this.time.apply(until), "-", hold.token, hold.granted, until, true));
            }
        }
        return sections;
    }

    private List<SemaphoreHistory.Span> spans(List<Hold> holds) {
        List<SemaphoreHistory.Span> spans = new ArrayList<>();
        for (Hold hold : holds) {
            long until = validUntil(hold);
            if (until > hold.granted) {
                spans.add(new SemaphoreHistory.Span(hold.name(), hold.token, hold.permits, hold.granted, until));
            }
        }
        return spans;
    }

    /** Why the lease was gone when the release was sent: a restart-empty after the grant, or a fixed lease ran out. */
    private String lostSilently(Hold hold) {
        for (Fault fault : this.history.faults) {
            boolean restarted = fault.kind().equals("redis-restart");
            if (restarted && hold.granted < fault.from() && hold.releaseSent > fault.from()) {
                return "granted at " + this.time.apply(hold.granted) + ", before Redis was killed at "
                        + this.time.apply(fault.from()) + " and restarted empty";
            }
        }
        // the lease ran out in Redis no later than the grant's reply plus the lease
        if (hold.leaseMillis > 0 && hold.releaseSent > hold.granted + hold.leaseMillis * 1_000_000 + TWENTY_MS) {
            return "its fixed lease of " + hold.leaseMillis + " ms granted at " + this.time.apply(hold.granted)
                    + " had run out";
        }
        return null;
    }

    private static final long TWENTY_MS = 20_000_000;

    /** No call made after a restart-empty is granted before the new process is {@code grace} old. */
    private List<String> restartGrace() {
        List<String> violations = new ArrayList<>();
        for (Fault fault : this.history.faults) {
            if (!fault.kind().equals("redis-restart")) {
                continue;
            }
            for (Hold hold : this.history.holds) {
                if (hold.asked > fault.from()) {
                    this.checks++;
                    if (hold.granted < fault.to() + this.graceNanos) {
                        violations.add(hold.name() + " granted at " + this.time.apply(hold.granted)
                                + ", within the restart grace of the Redis started at " + this.time.apply(fault.to()));
                    }
                }
            }
        }
        return violations;
    }

    /**
     * A call that waited while its key (its permits) was free for {@link #WAKE_UP_NANOS} in a calm stretch: one that
     * timed out, or one granted only after such a stretch (woken late).
     */
    private List<String> wakeUps() {
        List<String> violations = new ArrayList<>();
        for (Refusal refusal : this.history.refusals) {
            if (refusal.reason().equals("LockTimeoutException")) {
                wakeUp(refusal.process(), refusal.key(), refusal.permits(), refusal.asked(), refusal.ended(), null,
                        "waited in vain", violations);
            }
        }
        for (Hold hold : this.history.holds) {
            wakeUp(hold.process, hold.key, hold.permits, hold.asked, hold.granted, hold, "was granted late",
                    violations);
        }
        return violations;
    }

    private void wakeUp(String process, String key, int permits, long asked, long ended, Hold self, String what,
            List<String> violations) {
        if (ended - asked < WAKE_UP_NANOS) {
            return;
        }
        this.checks++;
        boolean judged = false;
        int allowed = key.equals(ProcessOps.SEMAPHORE) ? ProcessOps.LIMIT - permits : 0;
        long freeFrom = asked;
        for (long t = asked; t <= ended; t += 10_000_000) {
            boolean calm = calm(process, key, t);
            judged |= calm;
            if (!calm || busyPermits(key, t, self) > allowed) {
                freeFrom = t + 10_000_000;
            }
            else if (t - freeFrom >= WAKE_UP_NANOS) {
                violations.add(process + " " + what + " for " + key + " (" + permits + " permits), asked at "
                        + this.time.apply(asked) + ", done at " + this.time.apply(ended)
                        + ", although its permits were free and no fault was active from "
                        + this.time.apply(freeFrom) + " (without the waiter being woken)");
                break;
            }
        }
        this.wakeUpsJudged += judged ? 1 : 0;
    }

    /**
     * Whether no fault is near: none from 1 s before it to 2 s after it ends; the restart grace and 2 s after a
     * restart-empty; 3 s after a Cluster failover (once the old master has rejoined); 7 s after a client's kill or
     * stop, or a failover, for the fair key; never after a failover began for the client that refreshes its view of
     * the cluster every 30 s (outside docs/topologies.md's advice, so its waiters may wake late; its grants are
     * judged as every other's).
     */
    private boolean calm(String process, String key, long t) {
        for (Fault fault : this.history.faults) {
            if (fault.kind().equals("failover") && process.startsWith(ProcessCluster.SLOW_CLIENT)
                    && t >= fault.from() - 1_000_000_000L) {
                return false;
            }
            long to = fault.kind().equals("kill") ? fault.from() : fault.to();
            boolean client = fault.kind().equals("kill") || fault.kind().equals("stop");
            boolean failover = fault.kind().equals("failover");
            long after = fault.kind().equals("redis-restart") ? this.graceNanos + CALM_AFTER_NANOS
                    : (client || failover) && key.equals(ProcessOps.FAIR) ? FAIR_CALM_AFTER_NANOS
                    : failover ? FAILOVER_CALM_AFTER_NANOS : CALM_AFTER_NANOS;
            if (t >= fault.from() - 1_000_000_000L && t <= to + after) {
                return false;
            }
        }
        return true;
    }

    /**
     * Permits (1 for a lock) possibly held at {@code t}: from the call to the release's end (a failed release's: its
     * lease later), or to 4 s after its process was killed (every lease is shorter), or to the run's end.
     */
    private int busyPermits(String key, long t, Hold self) {
        int busy = 0;
        for (Hold hold : this.history.holds) {
            if (hold != self && hold.key.equals(key) && hold.asked <= t) {
                Long killed = this.history.killedAt(hold);
                long lease = (hold.leaseMillis == 0 ? ProcessClientMain.WATCHDOG_LEASE.toMillis() : hold.leaseMillis)
                        * 1_000_000L;
                long until = hold.releaseDone == null ? (killed != null ? killed + 4_000_000_000L : Long.MAX_VALUE)
                        : "ok".equals(hold.outcome) ? hold.releaseDone : hold.releaseDone + lease + 500_000_000L;
                if (t <= until) {
                    busy += hold.permits;
                }
            }
        }
        return busy;
    }
}
