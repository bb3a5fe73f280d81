package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.reliability.ProcessHistory.Fault;

/** The process mode's merge of the children's reports and its conservative windows, on made-up histories. */
class ProcessHistoryTest {

    private static final long MS = 1_000_000;

    private static final long GRACE = 3000 * MS;

    private static String ms(long millis) {
        return Long.toString(millis * MS);
    }

    /** A grant of {@code key} to handle {@code id}: asked 10 ms before {@code granted}, watchdog lease. */
    private static String grant(long id, String key, int permits, long token, long granted) {
        return "G " + id + " " + key + " " + permits + " " + token + " " + ms(granted - 10) + " " + ms(granted) + " 0";
    }

    private static List<String> check(ProcessHistory history) {
        return new ProcessChecks(history, GRACE, nanos -> nanos / MS + " ms").violations();
    }

    @Test
    void reportsOfProcessesAreMergedPerProcessAndADeadlineOfNoGrantIsFlagged() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "D 1 " + ms(150) + " " + ms(1600),
                "E 1 " + ms(200) + " true " + ms(1600), "R 1 " + ms(200) + " " + ms(210) + " ok"));
        history.addProcess("s1g0", List.of(grant(1, "pa", 1, 11, 300), "E 1 " + ms(400) + " true " + ms(1700),
                "R 1 " + ms(400) + " " + ms(410) + " ok", "D 7 " + ms(1) + " " + ms(2)));
        assertThat(history.holds).hasSize(2);
        assertThat(history.holds.get(0).end).isEqualTo(200 * MS);
        assertThat(history.holds.get(1).end).isEqualTo(400 * MS);
        assertThat(check(history)).containsExactly("s1g0: D 7 1000000 2000000");
    }

    @Test
    void aKilledHoldersLockCountsUntilTheLastDeadlineItReportedAndIsNotGrantedBefore() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "D 1 " + ms(150) + " " + ms(1600),
                "D 1 " + ms(200) + " " + ms(1700)));
        history.addFault(new Fault("kill", "s0g0", 300 * MS, 300 * MS));
        assertThat(history.validUntil(history.holds.get(0))).isEqualTo(1700 * MS - ProcessHistory.TOLERANCE);

        ProcessHistory early = copyWith(history, grant(1, "pa", 1, 11, 1500));
        assertThat(check(early)).singleElement().asString().contains("both believed they held")
            .contains("s0g0#1").contains("s1g0#1");
        assertThat(check(copyWith(history, grant(1, "pa", 1, 11, 1750)))).isEmpty();
    }

    @Test
    void aKilledHoldersPermitsCountUntilItsLeaseEnd() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "ps", 2, 10, 100), "D 1 " + ms(150) + " " + ms(1600)));
        history.addFault(new Fault("kill", "s0g0", 300 * MS, 300 * MS));
        assertThat(check(copyWith(history, grant(1, "ps", 2, 11, 1200)))).singleElement().asString()
            .contains("4 permits held at once (limit 3)");
        assertThat(check(copyWith(history, grant(1, "ps", 1, 11, 1200)))).isEmpty();
        assertThat(check(copyWith(history, grant(1, "ps", 2, 11, 1650)))).isEmpty();
    }

    @Test
    void aStoppedHoldersSectionCountsUntilItIsToldOrItsLeaseEndsWhicheverIsFirst() {
        ProcessHistory history = new ProcessHistory();
        // stopped at 300 ms for 2.7 s; resumed, it still believed it held the lock at its section's end
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "D 1 " + ms(250) + " " + ms(1700),
                "D 1 " + ms(3050) + " " + ms(9000), "E 1 " + ms(3100) + " true " + ms(9000)));
        history.addFault(new Fault("stop", "s0g0", 300 * MS, 3000 * MS));
        assertThat(history.validUntil(history.holds.get(0))).isEqualTo(1700 * MS - ProcessHistory.TOLERANCE);

        ProcessHistory told = new ProcessHistory();
        told.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "D 1 " + ms(250) + " " + ms(1700),
                "L 1 " + ms(1200), "E 1 " + ms(3100) + " false " + ms(1700)));
        told.addFault(new Fault("stop", "s0g0", 300 * MS, 3000 * MS));
        assertThat(told.validUntil(told.holds.get(0))).isEqualTo(1200 * MS);
        assertThat(check(copyWith(told, grant(1, "pa", 1, 11, 1300)))).isEmpty();
        assertThat(check(copyWith(told, grant(1, "pa", 1, 11, 1100)))).singleElement().asString()
            .contains("both believed they held");
    }

    @Test
    void aRedisRestartedEmptyGrantsNothingWithinTheGraceAndNoLeaseItLostIsReleasedClean() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 500), "E 1 " + ms(900) + " true " + ms(2000),
                "R 1 " + ms(1100) + " " + ms(1500) + " ok",
                "G 2 pb 1 20 " + ms(1150) + " " + ms(4100) + " 0", "E 2 " + ms(4200) + " true " + ms(5600),
                "R 2 " + ms(4200) + " " + ms(4210) + " ok",
                "G 3 pf 1 30 " + ms(1150) + " " + ms(4300) + " 0", "E 3 " + ms(4400) + " true " + ms(5700),
                "R 3 " + ms(4400) + " " + ms(4410) + " ok"));
        history.addFault(new Fault("redis-restart", "redis", 1000 * MS, 1200 * MS));
        assertThat(check(history)).containsExactlyInAnyOrder(
                "s0g0#1(pa, token 10): released clean at 1100 ms although its lease was gone (a lease lost silently: "
                        + "granted at 500 ms, before Redis was killed at 1000 ms and restarted empty)",
                "s0g0#2(pb, token 20) granted at 4100 ms, within the restart grace of the Redis started at 1200 ms");

        ProcessHistory reported = new ProcessHistory();
        reported.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 500), "L 1 " + ms(1050),
                "E 1 " + ms(1060) + " false " + ms(2000), "R 1 " + ms(1100) + " " + ms(1500) + " ok"));
        reported.addFault(new Fault("redis-restart", "redis", 1000 * MS, 1200 * MS));
        assertThat(check(reported)).isEmpty();
    }

    @Test
    void aCallerLeftWaitingForAFreeKeyInACalmStretchIsALostWakeUp() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "E 1 " + ms(500) + " true " + ms(1600),
                "R 1 " + ms(500) + " " + ms(510) + " ok", "N pa 1 " + ms(200) + " " + ms(4200)
                        + " LockTimeoutException"));
        assertThat(check(history)).singleElement().asString().contains("without the waiter being woken");

        history.addFault(new Fault("redis-pause", "redis", 1500 * MS, 1600 * MS));
        assertThat(check(history)).as("not a calm stretch").isEmpty();
    }

    @Test
    void aClusterFailoverKeepsAStretchFromCountingAsCalmUntilThreeSecondsAfterTheOldMasterRejoined() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "E 1 " + ms(500) + " true " + ms(1600),
                "R 1 " + ms(500) + " " + ms(510) + " ok", "N pa 1 " + ms(200) + " " + ms(5700)
                        + " LockTimeoutException"));
        history.addFault(new Fault("failover", "master:7001", 400 * MS, 800 * MS));
        assertThat(check(history)).as("calm from 3.8 s only").isEmpty();

        ProcessHistory longer = new ProcessHistory();
        longer.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "E 1 " + ms(500) + " true " + ms(1600),
                "R 1 " + ms(500) + " " + ms(510) + " ok", "N pa 1 " + ms(200) + " " + ms(6400)
                        + " LockTimeoutException"));
        longer.addFault(new Fault("failover", "master:7001", 400 * MS, 800 * MS));
        assertThat(check(longer)).singleElement().asString().contains("without the waiter being woken");

        ProcessHistory slow = new ProcessHistory();
        slow.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "E 1 " + ms(500) + " true " + ms(1600),
                "R 1 " + ms(500) + " " + ms(510) + " ok"));
        slow.addProcess("s2g0", List.of("N pa 1 " + ms(200) + " " + ms(6400) + " LockTimeoutException"));
        slow.addFault(new Fault("failover", "master:7001", 400 * MS, 800 * MS));
        assertThat(check(slow)).as("the client refreshing every 30 s is not judged after a failover").isEmpty();
    }

    @Test
    void aKeyWhoseReleaseFailedCountsAsHeldUntilItsLeaseCouldHaveEnded() {
        ProcessHistory history = new ProcessHistory();
        history.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "E 1 " + ms(500) + " true " + ms(1600),
                "R 1 " + ms(500) + " " + ms(510) + " LockUnavailableException", "N pa 1 " + ms(200) + " " + ms(4200)
                        + " LockTimeoutException"));
        assertThat(check(history)).as("free only from 2.51 s").isEmpty();

        ProcessHistory longer = new ProcessHistory();
        longer.addProcess("s0g0", List.of(grant(1, "pa", 1, 10, 100), "E 1 " + ms(500) + " true " + ms(1600),
                "R 1 " + ms(500) + " " + ms(510) + " LockUnavailableException", "N pa 1 " + ms(200) + " " + ms(5200)
                        + " LockTimeoutException"));
        assertThat(check(longer)).singleElement().asString().contains("without the waiter being woken");
    }

    /** The history plus a process {@code s1g0} that held this grant for 100 ms and released it. */
    private static ProcessHistory copyWith(ProcessHistory history, String grant) {
        long granted = Long.parseLong(grant.split(" ")[6]) / MS;
        ProcessHistory copy = new ProcessHistory();
        for (ProcessHistory.Hold hold : history.holds) {
            copy.holds.add(hold);
        }
        history.faults.forEach(copy::addFault);
        copy.addProcess("s1g0", List.of(grant, "E 1 " + ms(granted + 100) + " true " + ms(granted + 1500),
                "R 1 " + ms(granted + 100) + " " + ms(granted + 110) + " ok"));
        return copy;
    }
}
