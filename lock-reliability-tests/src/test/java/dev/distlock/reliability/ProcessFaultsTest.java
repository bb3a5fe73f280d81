package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.reliability.ExplorerSchedule.Fault;

/** The seeded draw of the process mode's faults, on one Redis and on a Redis Cluster (no process started). */
class ProcessFaultsTest {

    @Test
    void aSeedOnOneRedisDrawsTheFaultsItDrewBeforeTheClusterKindExisted() {
        // ExplorerProcessTest's seed: kill -9 at 1.1 s, Redis restarted empty at 4.5 s, a stop of 3.2 s at 6.3 s
        List<Fault> faults = ProcessFaults.draw(51, 10_000, ProcessRun.CLIENTS);
        assertThat(faults).extracting(Fault::kind).containsExactly("kill", "redis-restart", "stop");
        assertThat(faults).extracting(Fault::atMillis).containsExactly(1117L, 4545L, 6260L);
    }

    @Test
    void aClusterSeedDrawsKillsStopsAndFailoversOfAKeysMasterWithRoomForTheFailover() {
        int failovers = 0;
        for (long seed = 0; seed < 200; seed++) {
            List<Fault> faults = ProcessFaults.draw(seed, 20_000, ProcessRun.CLIENTS, ProcessFaults.CLUSTER_KINDS);
            for (int i = 0; i < faults.size(); i++) {
                Fault fault = faults.get(i);
                assertThat(fault.kind()).isIn(ProcessFaults.CLUSTER_KINDS);
                if (fault.kind().equals("failover")) {
                    failovers++;
                    assertThat(fault.a()).as("paused this long past the takeover").isBetween(0L, 1499L);
                    assertThat(fault.b()).as("the key whose master is paused").isBetween(0L, 3L);
                    if (i + 1 < faults.size()) {
                        assertThat(faults.get(i + 1).atMillis()).as("the next fault leaves the failover its time")
                            .isGreaterThanOrEqualTo(fault.atMillis() + fault.a()
                                    + ProcessFaults.FAILOVER_ALLOWANCE_MILLIS + 1500);
                    }
                }
                else {
                    assertThat(fault.b()).isZero();
                }
            }
        }
        assertThat(failovers).as("failovers in 200 seeds of 20 s").isGreaterThan(100);
        assertThat(ProcessFaults.draw(7, 20_000, 3, ProcessFaults.CLUSTER_KINDS))
            .as("the same seed draws the same faults").isEqualTo(ProcessFaults.draw(7, 20_000, 3,
                    ProcessFaults.CLUSTER_KINDS));
    }

    @Test
    void aFailoverIsDrawnOnlyOnACluster() {
        assertThatThrownBy(() -> ProcessFaults.draw(1, 20_000, 3, List.of("redis-restart", "failover")))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("explorer.process.faults")
            .hasMessageContaining("on a Redis Cluster");
        assertThat(ProcessFaults.draw(1, 20_000, 3, List.of("failover"))).isNotEmpty()
            .allSatisfy(f -> assertThat(f.kind()).isEqualTo("failover"));
    }
}
