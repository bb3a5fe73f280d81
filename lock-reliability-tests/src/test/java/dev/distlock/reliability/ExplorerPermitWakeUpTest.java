package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The semaphore wake-up check on synthetic histories: permits free long enough with a caller waiting fail it. */
class ExplorerPermitWakeUpTest {

    private static final long LIMIT = TimeUnit.MILLISECONDS.toNanos(ExplorerSettings.WAKE_LIMIT_MILLIS);

    private final ExplorerJournal journal = new ExplorerJournal();

    private final long t0 = System.nanoTime();

    private long at(long millis) {
        return this.t0 + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aWaiterLeftWaitingWhileItsPermitWasFreeFails() {
        this.journal.busy("sem:0", at(0), at(6000), 2); // two of three held throughout: one free
        this.journal.permitsWaited("sem:0", at(500), at(5000), "w", 3, 1);
        this.journal.checkPermitWakeUps(LIMIT);
        assertThat(this.journal.violations()).singleElement().asString()
            .contains("w waited for sem:0", "1 of its 3 permits were free", "for 4500 ms");
    }

    @Test
    void aWaiterWhoseFreeStretchesAreShortPasses() {
        this.journal.busy("sem:0", at(0), at(2000), 3);
        this.journal.busy("sem:0", at(3000), at(6000), 0); // a window of unknown permits counts as all of them
        this.journal.permitsWaited("sem:0", at(500), at(5000), "w", 3, 1); // free 2000-3000 ms only
        this.journal.checkPermitWakeUps(LIMIT);
        assertThat(this.journal.violations()).isEmpty();
    }

    @Test
    void holdsThatLeaveTooFewPermitsOrAFaultExcuseTheWait() {
        this.journal.busy("sem:1", at(0), at(6000), 1); // one of two held: a waiter for two is not owed a grant
        this.journal.permitsWaited("sem:1", at(0), at(5000), "two", 2, 2);
        this.journal.fault("stall", at(1000), at(2000)); // free before and after: 1000 and 3000 ms
        this.journal.permitsWaited("sem:0", at(0), at(5000), "one", 3, 1);
        this.journal.checkPermitWakeUps(LIMIT);
        assertThat(this.journal.violations()).singleElement().asString()
            .contains("one waited for sem:0", "from 2000 ms for 3000 ms");
    }

    @Test
    void overlappingHoldsAddUp() {
        this.journal.busy("sem:0", at(0), at(3000), 2);
        this.journal.busy("sem:0", at(2000), at(6000), 1); // three held from 2000 to 3000 ms
        this.journal.busy("sem:0", at(3000), at(6000), 2);
        this.journal.permitsWaited("sem:0", at(0), at(6000), "w", 3, 1); // free 0-2000 ms, then none
        this.journal.checkPermitWakeUps(LIMIT);
        assertThat(this.journal.violations()).isEmpty();
    }
}
