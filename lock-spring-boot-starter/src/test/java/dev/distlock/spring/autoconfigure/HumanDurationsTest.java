package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class HumanDurationsTest {

    @Test
    void durationsReadAsPeopleWriteThem() {
        assertThat(HumanDurations.format(Duration.ofMillis(250))).isEqualTo("250 ms");
        assertThat(HumanDurations.format(Duration.ofNanos(5_002_848_792L))).isEqualTo("5.0 s");
        assertThat(HumanDurations.format(Duration.ofSeconds(30))).isEqualTo("30.0 s");
        assertThat(HumanDurations.format(Duration.ofSeconds(125))).isEqualTo("2 min 5 s");
        assertThat(HumanDurations.format(Duration.ofHours(3))).isEqualTo("3 h 0 min");
        assertThat(HumanDurations.format(Duration.ofDays(8))).isEqualTo("8 d 0 h");
        assertThat(HumanDurations.format(Duration.ofSeconds(-5))).isEqualTo("-5.0 s");
    }
}
