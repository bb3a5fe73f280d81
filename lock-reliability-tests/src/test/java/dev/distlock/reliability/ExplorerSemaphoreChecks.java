package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.List;

/**
 * The end-of-run checks of one semaphore of an explorer run, from the grants its holders recorded
 * ({@link ExplorerPermits.PermitHold}): the permits of holders valid at the end of their sections whose entries the
 * resource accepted never add up to more than the limit; nor do those of holders never told of a loss whose release gave
 * the permits back, from grant to release (else a permit was lost silently); a fixed-lease permit released well after
 * its lease ran out is reported lost; tokens are one grant's each and increase with the grants.
 */
final class ExplorerSemaphoreChecks {

    /** How long after a fixed lease's end (counted from the grant's reply) a release must report the loss. */
    private static final long LAPSED_MARGIN_MILLIS = 100;

    private final ExplorerJournal journal;

    private final long seed;

    ExplorerSemaphoreChecks(ExplorerJournal journal, long seed) {
        this.journal = journal;
        this.seed = seed;
    }

    void check(String key, int limit, List<ExplorerPermits.PermitHold> holds, long acceptedEntries) {
        List<SemaphoreHistory.Span> valid = new ArrayList<>();
        List<SemaphoreHistory.Span> unreported = new ArrayList<>();
        List<SemaphoreHistory.Grant> grants = new ArrayList<>();
        for (ExplorerPermits.PermitHold hold : holds) {
            grants.add(new SemaphoreHistory.Grant(hold.holder(), hold.token(), hold.askedNanos, hold.grantedNanos));
            if (!hold.accepted) {
                this.journal.violation(key + ": the resource refused the entry of " + hold.holder() + " with token "
                        + hold.token() + ", a token it had seen before");
            }
            else if (hold.validAtEnd) {
                valid.add(new SemaphoreHistory.Span(hold.holder(), hold.token(), hold.permits, hold.sectionStart,
                        hold.sectionEnd));
            }
            if (!hold.lossReported() && hold.releasedCleanly()) {
                unreported.add(new SemaphoreHistory.Span(hold.holder(), hold.token(), hold.permits, hold.sectionStart,
                        hold.releaseSentNanos()));
                long lapsedFor = (hold.releaseSentNanos() - hold.grantedNanos) / 1_000_000 - hold.leaseMillis;
                this.journal.checked();
                if (hold.leaseMillis > 0 && lapsedFor > LAPSED_MARGIN_MILLIS) {
                    this.journal.violation(key + ": the fixed lease of " + hold.leaseMillis + " ms of " + hold.holder()
                            + " (token " + hold.token() + ") had run out " + lapsedFor + " ms before its release was "
                            + "sent, yet the release gave the permits back and no loss was reported (a silent loss)",
                            hold.releaseSentNanos());
                }
            }
        }
        this.journal.checked(holds.size() + 2L);
        long validOver = SemaphoreHistory.firstOverLimitNanos(valid, limit);
        SemaphoreHistory.overLimit(valid, limit, this::millis)
            .forEach(text -> this.journal.violation(key + ": holders valid at the end of their sections: " + text,
                    validOver));
        long unreportedOver = SemaphoreHistory.firstOverLimitNanos(unreported, limit);
        SemaphoreHistory.overLimit(unreported, limit, this::millis)
            .forEach(text -> this.journal.violation(key + ": holders never told of a loss, from grant to release (a "
                    + "permit lost silently, or granted over the limit): " + text, unreportedOver));
        SemaphoreHistory.tokenOrder(grants).forEach(text -> this.journal.violation(key + ": " + text));
        String figures = key + ": " + holds.size() + " grants, " + valid.size() + " valid to the end, "
                + acceptedEntries + " entries accepted; most permits at once " + SemaphoreHistory.mostAtOnce(valid)
                + " of " + limit + " (valid), " + SemaphoreHistory.mostAtOnce(unreported)
                + " (grant to release, no loss told)";
        this.journal.log(figures);
        System.out.println("[explorer] seed " + this.seed + " " + figures);
    }

    private String millis(long nanos) {
        return this.journal.millis(nanos) + " ms";
    }
}
