package dev.distlock.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

import dev.distlock.bench.harness.Summary;

class TableTest {

    @Test
    void rendersAPaddedMarkdownTable() {
        String table = new Table("implementation", "cycles/s").row("distlock", "12,000").row("raw", "9").render();
        assertThat(table).isEqualTo("""
                | implementation | cycles/s |
                | -------------- | -------- |
                | distlock       | 12,000   |
                | raw            | 9        |
                """);
    }

    @Test
    void rejectsARowOfTheWrongWidth() {
        assertThatIllegalArgumentException().isThrownBy(() -> new Table("a", "b").row("only one"));
    }

    @Test
    void formatsFiguresAndShowsMissingOnesAsADash() {
        assertThat(Fmt.countRange(Summary.of(1000, 1200, 900))).isEqualTo("1,000 (900–1,200)");
        assertThat(Fmt.micros(4.25)).isEqualTo("4.3 µs");
        assertThat(Fmt.micros(412.4)).isEqualTo("412 µs");
        assertThat(Fmt.micros(46_100)).isEqualTo("46.1 ms");
        assertThat(Fmt.micros(10_000_000)).isEqualTo("10.00 s");
        assertThat(Fmt.ratio(1.234)).isEqualTo("1.23×");
        assertThat(Fmt.ratio(Double.NaN)).isEqualTo(Fmt.NONE);
        // judged against a threshold: never the threshold itself for a value on the other side of it
        assertThat(Fmt.ratio(0.9967, 1.0)).isEqualTo("0.997×");
        assertThat(Fmt.ratio(1.0004, 1.0)).isEqualTo("1.0004×");
        assertThat(Fmt.ratio(1.0, 1.0)).isEqualTo("1.00×");
        assertThat(Fmt.ratio(1.1549, 1.15)).isEqualTo("1.155×");
        assertThat(Fmt.ratio(1.234, 1.15)).isEqualTo("1.23×");
        assertThat(Fmt.decimal(8.0001, 8)).isEqualTo("8.0001");
        assertThat(Fmt.ratio(Double.NaN, 1.0)).isEqualTo(Fmt.NONE);
        assertThat(Fmt.countRange(Summary.EMPTY)).isEqualTo(Fmt.NONE);
    }
}
