package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

/**
 * The shrinker's parts: ddmin against synthetic failing predicates, the schedule's text form, the replayable random,
 * and a run given an explicit schedule (on a real Redis) performing exactly its operations and faults.
 */
class ExplorerShrinkerTest {

    private static final List<Integer> HUNDRED = IntStream.range(0, 100).boxed().toList();

    @Test
    void ddminFindsTheOnlyTwoItemsThatMatter() {
        Predicate<List<Integer>> fails = list -> list.contains(17) && list.contains(42);
        AtomicLong tests = new AtomicLong();
        List<Integer> shrunk = ExplorerShrinker.ddmin(HUNDRED, list -> {
            tests.incrementAndGet();
            return fails.test(list);
        }, () -> 0, Long.MAX_VALUE);
        assertThat(shrunk).containsExactly(17, 42);
        assertThat(tests.get()).isLessThan(100); // far fewer tests than one per subset of two
    }

    @Test
    void ddminResultIsOneMinimal() {
        // fails when at least three multiples of 7 remain, and 50 is kept
        Predicate<List<Integer>> fails = list -> list.contains(50)
                && list.stream().filter(i -> i % 7 == 0).count() >= 3;
        List<Integer> shrunk = ExplorerShrinker.ddmin(HUNDRED, fails, () -> 0, Long.MAX_VALUE);
        assertThat(fails.test(shrunk)).isTrue();
        assertThat(shrunk).hasSize(4).contains(50);
        for (int i = 0; i < shrunk.size(); i++) {
            List<Integer> fewer = new ArrayList<>(shrunk);
            fewer.remove(i);
            assertThat(fails.test(fewer)).as("without %s", shrunk.get(i)).isFalse();
        }
    }

    @Test
    void ddminStopsAtItsDeadlineWithAFailingList() {
        AtomicLong clock = new AtomicLong(); // each test costs one unit of time
        List<List<Integer>> tested = new ArrayList<>();
        List<Integer> shrunk = ExplorerShrinker.ddmin(HUNDRED, list -> {
            clock.incrementAndGet();
            tested.add(list);
            return list.contains(17) && list.contains(42);
        }, clock::get, 5);
        assertThat(tested).hasSize(5); // no test starts at or after the deadline
        assertThat(shrunk).contains(17, 42).hasSizeLessThan(100);
        assertThat(shrunk).isEqualTo(tested.stream().filter(l -> l.contains(17) && l.contains(42))
            .reduce((a, b) -> b).orElse(HUNDRED));
    }

    @Test
    void replayableRandomDrawsWhatRandomDraws() {
        Random plain = new Random(-6397832321912477082L);
        ExplorerRandom replayable = new ExplorerRandom(-6397832321912477082L);
        for (int i = 0; i < 10_000; i++) {
            switch (i % 5) {
                case 0 -> assertThat(replayable.nextInt(125)).isEqualTo(plain.nextInt(125));
                case 1 -> assertThat(replayable.nextLong()).isEqualTo(plain.nextLong());
                case 2 -> assertThat(replayable.nextBoolean()).isEqualTo(plain.nextBoolean());
                case 3 -> assertThat(replayable.nextInt(1 + i)).isEqualTo(plain.nextInt(1 + i));
                default -> assertThat(replayable.nextDouble()).isEqualTo(plain.nextDouble());
            }
        }
        ExplorerRandom resumed = ExplorerRandom.ofState(replayable.state());
        for (int i = 0; i < 100; i++) {
            assertThat(resumed.nextInt(6000)).isEqualTo(plain.nextInt(6000));
        }
    }

    @Test
    void theTextFormRoundTrips() {
        ExplorerSchedule schedule = new ExplorerSchedule(-42, 20, "reply-delay,stall", false, true,
                List.of(new ExplorerSchedule.Op(0, 2, 0, 0xFFFF_FFFF_FFFFL, "acquire"),
                        new ExplorerSchedule.Fault(1200, "reply-delay", 1, 50, 610),
                        new ExplorerSchedule.Op(1, 0, 1300, 7, "semaphore"),
                        new ExplorerSchedule.Fault(4000, "redis-pause", 0, 900, 0)));
        assertThat(ExplorerSchedule.parse(schedule.text())).isEqualTo(schedule);
        assertThat(ExplorerSchedule.parse(schedule.text().replace("\n", ";"))).isEqualTo(schedule);
        assertThat(schedule.opCount()).isEqualTo(2);
        assertThat(schedule.faultCount()).isEqualTo(2);
        assertThatThrownBy(() -> ExplorerSchedule.parse(schedule.text() + "op s0 12 ab acquire\n"))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 6 'op s0 12 ab acquire'");
    }

    @Test
    void violationsOfOneKindAcrossRuns() {
        assertThat(ExplorerShrinker.kind("release of EXCLUSIVE ex:0 by s0-w1 (token 12) reported a lost lease "
                + "although the lease had 900 ms left")).isEqualTo(ExplorerShrinker.kind("releaseAsync of FAIR fair:0 "
                        + "by s1-a77 (token 3) reported a lost lease although the lease had 1200 ms left"));
        assertThat(ExplorerShrinker.kind("rw:0 was still held 9161 ms after every handle was released"))
            .isNotEqualTo(ExplorerShrinker.kind("two owners both believed they held ex:0 at once"));
        assertThat(ExplorerShrinker.kind("w waited for sem:0 from 1 ms to 5000 ms; 1 of its 3 permits were free and no "
                + "fault was active from 1 ms for 4999 ms without the waiter being woken"))
            .isNotEqualTo(ExplorerShrinker.kind("w waited for ex:0 from 1 ms to 5000 ms; the lock was free and no fault "
                    + "was active from 1 ms for 4999 ms without the waiter being woken"));
    }

    /** A run given a schedule performs its operations (from their states) and its faults, nothing drawn besides. */
    @Test
    void aRunGivenAScheduleDoesExactlyThat() throws Exception {
        ExplorerSchedule.Op tryAcquire = new ExplorerSchedule.Op(0, 0, 0, stateDrawing(14, 22), "tryAcquire");
        ExplorerSchedule.Op executeLocked = new ExplorerSchedule.Op(1, 2, 150, stateDrawing(22, 30), "executeLocked");
        ExplorerSchedule.Fault stall = new ExplorerSchedule.Fault(50, "stall", 1, 100, 0);
        ExplorerSchedule schedule = new ExplorerSchedule(7, 5, "all", false, false,
                List.of(tryAcquire, stall, executeLocked));
        long start = System.nanoTime();
        ExplorerResult result = new ExplorerRun(schedule).run();
        long tookMillis = (System.nanoTime() - start) / 1_000_000;

        assertThat(result.violations()).isEmpty();
        assertThat(result.faults()).isEqualTo(Map.of("stall", 1L));
        assertThat(result.operations()).containsEntry("tryAcquire", 1L).containsEntry("executeLocked", 1L)
            .doesNotContainKeys("acquire", "async.acquire", "acquireAll", "semaphore.acquire");
        List<ExplorerSchedule.Item> performed = result.schedule().items();
        assertThat(performed).hasSize(3);
        assertThat(performed.stream().map(ExplorerShrinkerTest::withoutTime).toList())
            .containsExactlyInAnyOrderElementsOf(schedule.items().stream().map(ExplorerShrinkerTest::withoutTime)
                .toList());
        for (ExplorerSchedule.Item item : performed) { // each no earlier than its time
            assertThat(item.atMillis()).isGreaterThanOrEqualTo(schedule.items().stream()
                .filter(given -> withoutTime(given).equals(withoutTime(item))).findFirst().orElseThrow().atMillis());
        }
        // the run ended with its schedule, not after the 5 s of a seeded run
        System.out.println("[explorer] a run of a 3-item schedule took " + tookMillis + " ms");
    }

    /** A worker's random state whose first operation pick falls in [from, to) of 125. */
    private static long stateDrawing(int from, int to) {
        for (long state = 1;; state++) {
            int pick = ExplorerRandom.ofState(state).nextInt(125);
            if (pick >= from && pick < to) {
                return state;
            }
        }
    }

    private static String withoutTime(ExplorerSchedule.Item item) {
        return item.text().replaceFirst("^(op \\S+|fault) \\d+", "$1");
    }
}
