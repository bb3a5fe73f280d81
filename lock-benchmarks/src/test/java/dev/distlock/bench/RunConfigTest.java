package dev.distlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

import dev.distlock.bench.clients.Implementation;

class RunConfigTest {

    @Test
    void runsEveryScenarioAndImplementationWithSixtyFourCyclesInFlightByDefault() {
        RunConfig config = RunConfig.parse();
        assertThat(config.scenarios()).containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
        assertThat(config.implementations()).contains(Implementation.DISTLOCK_ASYNC, Implementation.REDISSON_ASYNC);
        assertThat(config.inFlight()).isEqualTo(64);
    }

    @Test
    void inFlightAndAsyncImplementationsAreChosenOnTheCommandLine() {
        RunConfig config = RunConfig.parse("--in-flight=128", "--implementations=distlock-async,raw-floor");
        assertThat(config.inFlight()).isEqualTo(128);
        assertThat(config.implementations()).containsExactly(Implementation.DISTLOCK_ASYNC, Implementation.RAW);
    }

    @Test
    void aBadInFlightCountIsRefusedByName() {
        assertThatIllegalArgumentException().isThrownBy(() -> RunConfig.parse("--in-flight=0"))
            .withMessageStartingWith("--in-flight must be a whole number from 1 to 4096, not '0'");
        assertThatIllegalArgumentException().isThrownBy(() -> RunConfig.parse("--in-flight=many"))
            .withMessageStartingWith("--in-flight must be a whole number");
    }

    @Test
    void theRenewalScenarioHoldsTenThousandLocksUnlessToldHowMany() {
        assertThat(RunConfig.parse().heldLocks()).isEqualTo(10_000);
        assertThat(RunConfig.parse("--scenarios=9", "--held-locks=100000").heldLocks()).isEqualTo(100_000);
        assertThatIllegalArgumentException().isThrownBy(() -> RunConfig.parse("--held-locks=200001"))
            .withMessageStartingWith("--held-locks must be a whole number from 1 to 200000, not '200001'");
    }

    @Test
    void theSemaphoreScenarioIsChosenByItsNumber() {
        assertThat(RunConfig.parse("--quick", "--scenarios=11").scenarios()).containsExactly("11");
    }
}
