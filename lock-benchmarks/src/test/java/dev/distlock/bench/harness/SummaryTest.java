package dev.distlock.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SummaryTest {

    @Test
    void medianOfAnOddCountIsTheMiddleValue() {
        Summary summary = Summary.of(5, 1, 3);
        assertThat(summary.median()).isEqualTo(3);
        assertThat(summary.min()).isEqualTo(1);
        assertThat(summary.max()).isEqualTo(5);
        assertThat(summary.count()).isEqualTo(3);
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheMiddleValues() {
        assertThat(Summary.of(4, 1, 3, 10).median()).isEqualTo(3.5);
    }

    @Test
    void missingFiguresAreIgnoredAndNoFiguresGiveAnEmptySummary() {
        assertThat(Summary.of(Double.NaN, 2, Double.NaN).median()).isEqualTo(2);
        assertThat(Summary.of(Double.NaN).isEmpty()).isTrue();
        assertThat(Summary.of().isEmpty()).isTrue();
    }

    @Test
    void percentilesAreInMicrosecondsWithinTheHistogramsResolution() {
        Histogram histogram = Latencies.newHistogram();
        for (int i = 1; i <= 100; i++) {
            Latencies.record(histogram, i * 1_000L); // 1 µs .. 100 µs
        }
        assertThat(Latencies.percentileMicros(histogram, 50)).isCloseTo(50, org.assertj.core.data.Percentage.withPercentage(2));
        assertThat(Latencies.percentileMicros(histogram, 99)).isCloseTo(99, org.assertj.core.data.Percentage.withPercentage(2));
        assertThat(Latencies.percentileMicros(Latencies.newHistogram(), 50)).isNaN();
    }

    @Test
    void threadResultsMergeIntoOneIteration() {
        ThreadResult one = new ThreadResult();
        one.cycle(1_000);
        one.cycle(2_000);
        one.finishedAt = 1_500_000_000L;
        ThreadResult two = new ThreadResult();
        two.cycle(3_000);
        two.violation();
        two.finishedAt = 2_000_000_000L;
        LoadResult merged = LoadResult.merge(java.util.List.of(one, two), 1_000_000_000L);
        assertThat(merged.cycles()).isEqualTo(3);
        assertThat(merged.elapsedNanos()).isEqualTo(1_000_000_000L);
        assertThat(merged.cyclesPerSecond()).isEqualTo(3.0);
        assertThat(merged.violations()).isEqualTo(1);
        assertThat(merged.cycleLatency().getTotalCount()).isEqualTo(3);
        assertThat(merged.fewestCycles()).isEqualTo(1);
    }
}
