package dev.distlock.bench.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.bench.clients.Implementation;

class ScenarioCoverageTest {

    private static final List<Implementation> ALL = List.of(Implementation.values());

    @Test
    void blockingScenariosRunTheBlockingImplementationsOnly() {
        for (Scenario scenario : Scenario.all().subList(0, 6)) {
            // the fenced floor is a reference for the own-key scenarios only
            List<Implementation> expected = List.of(scenario.id().equals("1") || scenario.id().equals("2")
                    ? new Implementation[] { Implementation.DISTLOCK, Implementation.REDISSON,
                            Implementation.SPRING_INTEGRATION, Implementation.RAW, Implementation.FENCED }
                    : new Implementation[] { Implementation.DISTLOCK, Implementation.REDISSON,
                            Implementation.SPRING_INTEGRATION, Implementation.RAW });
            assertThat(scenario.covered(ALL)).as("scenario %s", scenario.id()).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void theAsyncScenariosRunTheNonBlockingOnesAndScenarioSevenTheRawFloorAsItsReference() {
        assertThat(AsyncCycleScenario.distinctKeys().covered(ALL)).containsExactly(Implementation.RAW,
                Implementation.RAW_ASYNC, Implementation.FENCED_ASYNC, Implementation.DISTLOCK_ASYNC,
                Implementation.REDISSON_ASYNC);
        assertThat(AsyncCycleScenario.hotKey().covered(ALL)).containsExactly(Implementation.DISTLOCK_ASYNC,
                Implementation.REDISSON_ASYNC);
        assertThat(Scenario.all()).extracting(Scenario::id)
            .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
    }

    @Test
    void renewalAtScaleComparesTheTwoBatchingWatchdogsAndCapacityRunsDistlockOnce() {
        assertThat(new RenewalAtScaleScenario().covered(ALL)).containsExactly(Implementation.DISTLOCK,
                Implementation.REDISSON);
        assertThat(new CapacityScenario().covered(ALL)).containsExactly(Implementation.DISTLOCK);
        assertThat(new CapacityScenario().covered(List.of(Implementation.DISTLOCK_ASYNC)))
            .containsExactly(Implementation.DISTLOCK_ASYNC);
        assertThat(new CapacityScenario().covered(List.of(Implementation.REDISSON))).isEmpty();
    }

    @Test
    void theSemaphoreScenarioComparesDistlockAndRedissonOnly() {
        assertThat(new SemaphoreScenario().covered(ALL)).containsExactly(Implementation.DISTLOCK,
                Implementation.REDISSON);
        assertThat(new SemaphoreScenario().covered(List.of(Implementation.SPRING_INTEGRATION, Implementation.RAW,
                Implementation.FENCED, Implementation.DISTLOCK_ASYNC))).isEmpty();
    }
}
