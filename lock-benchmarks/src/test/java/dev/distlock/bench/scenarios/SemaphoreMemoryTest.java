package dev.distlock.bench.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class SemaphoreMemoryTest {

    @Test
    void figuresAreTheDifferencesBetweenStepsPerSemaphoreOrPerFurtherPermit() {
        int n = SemaphoreMemory.SEMAPHORES;
        SemaphoreMemory.Result result = new SemaphoreMemory.Result(new SemaphoreMemory.Snapshot(5_000, 100, 0),
                new SemaphoreMemory.Snapshot(5_000 + 280L * n, 100 + 300L * n, 2L * n),
                new SemaphoreMemory.Snapshot(5_000 + 280L * n + 4 * 31L * n, 100 + 300L * n + 4 * 30L * n, 2L * n),
                new SemaphoreMemory.Snapshot(5_000 + 50L * n, 100, n), List.of("a", "b"));

        assertThat(result.keyBytesPerSemaphore()).isEqualTo(300);
        assertThat(result.bytesPerSemaphore()).isEqualTo(280);
        assertThat(result.keyBytesPerFurtherPermit()).isEqualTo(30);
        assertThat(result.bytesPerFurtherPermit()).isEqualTo(31);
        assertThat(result.keysPerFullSemaphore()).isEqualTo(2);
        assertThat(result.keysLeftPerSemaphore()).isEqualTo(1);
        assertThat(result.bytesLeftPerSemaphore()).isEqualTo(50);
    }
}
