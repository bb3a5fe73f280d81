package dev.distlock.bench.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.distlock.bench.clients.LockType;
import dev.distlock.bench.harness.IterationSample;
import dev.distlock.bench.harness.LoadResult;
import dev.distlock.bench.harness.Latencies;
import dev.distlock.bench.harness.Measurement;
import dev.distlock.bench.redis.ServerUsage;

class CapacityTest {

    @Test
    void shardsNeededPlanEachShardHalfBusyAndNeverFewerThanOne() {
        // 20 µs a cycle: one core carries 50,000 cycles/s, half of it 25,000
        assertThat(Capacity.shards(10_000, 20)).isEqualTo(1);
        assertThat(Capacity.shards(25_000, 20)).isEqualTo(1);
        assertThat(Capacity.shards(25_001, 20)).isEqualTo(2);
        assertThat(Capacity.shards(1_000_000, 20)).isEqualTo(40);
    }

    @Test
    void eachShardsCpuIsSetAgainstTheCyclesItServedByItsShareOfTheCommands() {
        // one server: 1,000 cycles at 20 ms of CPU = 20 µs a cycle
        Measurement one = measurement(1_000, usage(10_000, 20_000));
        // cluster: 3,000 cycles; shards ran 50%, 30% and 20% of the commands, at 20, 24 and 16 µs a cycle
        ServerUsage[] shards = { usage(15_000, 30_000), usage(9_000, 21_600), usage(6_000, 9_600) };
        Measurement many = measurement(3_000, usage(30_000, 61_200));
        Capacity capacity = new Capacity(Map.of(LockType.EXCLUSIVE, one), Map.of(LockType.EXCLUSIVE, many),
                Map.of(LockType.EXCLUSIVE, List.<ServerUsage[]>of(shards)));

        double[] perShard = capacity.perShardMicros(LockType.EXCLUSIVE);
        assertThat(perShard[0]).isCloseTo(20, offset(1e-9));
        assertThat(perShard[1]).isCloseTo(24, offset(1e-9));
        assertThat(perShard[2]).isCloseTo(16, offset(1e-9));
        assertThat(capacity.planningMicros(LockType.EXCLUSIVE)).as("the dearest shard plans").isCloseTo(24,
                offset(1e-9));
        assertThat(capacity.shardsNeeded()).contains("| exclusive").contains("| 24.00").contains("| 48 shards");
    }

    @Test
    void withoutAClusterTheOneServersFigurePlans() {
        Capacity capacity = new Capacity(Map.of(LockType.FAIR, measurement(1_000, usage(10_000, 30_000))), Map.of(),
                Map.of());
        assertThat(capacity.perShardMicros(LockType.FAIR)).isEmpty();
        assertThat(capacity.planningMicros(LockType.FAIR)).isCloseTo(30, offset(1e-9));
        assertThat(capacity.render(64)).contains("| fair").contains("33,333");
    }

    private static ServerUsage usage(long calls, long cpuMicros) {
        return new ServerUsage(Map.of("evalsha", calls), Map.of(), cpuMicros);
    }

    private static Measurement measurement(long cycles, ServerUsage server) {
        LoadResult load = new LoadResult(cycles, 1_000_000_000L, Latencies.newHistogram(), Latencies.newHistogram(),
                0, 0, null, cycles);
        return new Measurement(List.of(new IterationSample(load, server, 0, 1_000_000)));
    }
}
