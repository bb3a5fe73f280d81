package dev.distlock.bench.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class SemaphoreMemoryTest {

    @Test
    void figuresAreTheDifferencesBetweenStepsPerSemaphoreOrPerFurtherPermit() {
        int n = SemaphoreMemory.SEMAPHORES;
        SemaphoreMemory.Result result = new SemaphoreMemory.Result(new SemaphoreMemory.Snapshot(100, 5_000, 0),
                new SemaphoreMemory.Snapshot(100 + 300L * n, 5_000 + 280L * n, 2L * n),
                new SemaphoreMemory.Snapshot(100 + 300L * n + 4 * 30L * n, 5_000 + 280L * n + 4 * 31L * n, 2L * n),
                new SemaphoreMemory.Snapshot(100 + 50L * n, 5_000, n), List.of("a", "b"));

        assertThat(result.bytesPerSemaphore()).isEqualTo(300);
        assertThat(result.usedMemoryPerSemaphore()).isEqualTo(280);
        assertThat(result.bytesPerFurtherPermit()).isEqualTo(30);
        assertThat(result.usedMemoryPerFurtherPermit()).isEqualTo(31);
        assertThat(result.keysPerFullSemaphore()).isEqualTo(2);
        assertThat(result.keysLeftPerSemaphore()).isEqualTo(1);
        assertThat(result.bytesLeftPerSemaphore()).isEqualTo(50);
    }
}
