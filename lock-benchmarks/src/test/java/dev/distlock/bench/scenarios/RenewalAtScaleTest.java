package dev.distlock.bench.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.distlock.bench.harness.Summary;
import dev.distlock.bench.redis.ServerUsage;

class RenewalAtScaleTest {

    private static final long FOUR_SECONDS = 4_000_000_000L;

    @Test
    void renewedLocksAreThePexpiresTheRenewalScriptsRanAndIdleCpuIsTakenOff() {
        // two periods of 10,000 locks: 20,000 PEXPIREs in 200 EVALSHAs, 150 ms of CPU, of which 4 s × 2.5 ms/s idle
        ServerUsage usage = new ServerUsage(Map.of("evalsha", 200L, "hmget", 20_000L, "pttl", 20_000L, "pexpire",
                20_000L), Map.of(), 150_000);
        RenewalAtScaleScenario.Slice slice = new RenewalAtScaleScenario.Slice(usage, FOUR_SECONDS);
        RenewalAtScaleScenario.Result result = new RenewalAtScaleScenario.Result(10_000, 2_500, List.of(slice),
                10_000, 0, Summary.EMPTY);

        assertThat(slice.renewals()).isEqualTo(20_000);
        assertThat(result.netMicrosPerRenewal().median()).isCloseTo((150_000 - 10_000) / 20_000.0, offset(1e-9));
        assertThat(result.grossMicrosPerRenewal().median()).isCloseTo(7.5, offset(1e-9));
        assertThat(result.netMicrosPerSecondPerLock().median()).isCloseTo(140_000 / 4.0 / 10_000, offset(1e-9));
        assertThat(result.renewalsPerLockPerSecond().median()).isCloseTo(0.5, offset(1e-9));
        assertThat(result.requestsPerHundredPerPeriod().median()).isCloseTo(1.0, offset(1e-9));
        assertThat(result.commandsPerRenewal()).isCloseTo(60_200 / 20_000.0, offset(1e-9));
    }

    @Test
    void aSliceWithoutRenewalsHasNoCostPerRenewalRatherThanAnInfiniteOne() {
        ServerUsage usage = new ServerUsage(Map.of("evalsha", 100L, "hexists", 10_000L), Map.of(), 50_000);
        RenewalAtScaleScenario.Result result = new RenewalAtScaleScenario.Result(10_000, 0,
                List.of(new RenewalAtScaleScenario.Slice(usage, FOUR_SECONDS)), 0, 0, Summary.EMPTY);
        assertThat(result.netMicrosPerRenewal().isEmpty()).isTrue();
        assertThat(result.renewalsPerLockPerSecond().median()).isZero();
    }
}
