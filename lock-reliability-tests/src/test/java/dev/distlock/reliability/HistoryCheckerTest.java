package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The checker itself: histories that must pass and histories that must fail. */
class HistoryCheckerTest {

    private static Section section(String client, long token, long start, long end, boolean valid) {
        return new Section(client, "owner-" + client, token, start, end, valid);
    }

    @Test
    void backToBackSectionsPass() {
        List<Section> history = List.of(section("a", 1, 0, 10, true), section("b", 2, 10, 20, true),
                section("a", 3, 25, 30, true));
        assertThat(HistoryChecker.violations(history, List.of(1L, 2L, 3L))).isEmpty();
    }

    @Test
    void anOverlapOfTwoValidHoldersFails() {
        List<Section> history = List.of(section("a", 1, 0, 10, true), section("b", 2, 9, 20, true));
        assertThat(HistoryChecker.overlaps(history)).singleElement().asString().contains("overlap");
    }

    @Test
    void anOverlapHiddenBehindALongSectionFails() {
        // c overlaps a, which started first and ends last; b in between does not overlap c
        List<Section> history = List.of(section("a", 1, 0, 100, true), section("b", 2, 10, 20, true),
                section("c", 3, 50, 60, true));
        assertThat(HistoryChecker.overlaps(history)).hasSize(2);
    }

    @Test
    void anOverlapWithAHolderThatKnewItsLeaseWasLostPasses() {
        List<Section> history = List.of(section("paused", 1, 0, 100, false), section("b", 2, 50, 60, true));
        assertThat(HistoryChecker.overlaps(history)).isEmpty();
    }

    @Test
    void aSectionEndingBeforeItStartsFails() {
        assertThat(HistoryChecker.overlaps(List.of(section("a", 1, 10, 5, true)))).hasSize(1);
    }

    @Test
    void tokensAcceptedOutOfOrderOrTwiceFail() {
        assertThat(HistoryChecker.nonIncreasingTokens(List.of(1L, 2L, 2L))).hasSize(1);
        assertThat(HistoryChecker.nonIncreasingTokens(List.of(5L, 3L, 7L))).hasSize(1);
        assertThat(HistoryChecker.nonIncreasingTokens(List.of(1L, 5L, 9L))).isEmpty();
    }

    @Test
    void sectionsSurviveTheirLineFormat() {
        Section section = section("client-1", 1763700000000001L, 123, 456, false);
        assertThat(Section.fromLine(section.toLine())).isEqualTo(section);
    }
}
