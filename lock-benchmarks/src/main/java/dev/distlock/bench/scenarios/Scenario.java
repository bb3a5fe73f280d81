package dev.distlock.bench.scenarios;

import java.time.Duration;
import java.util.List;

import dev.distlock.bench.RunConfig;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.harness.BenchContext;

/** One benchmark scenario, run for every implementation in turn against the same server. */
public interface Scenario {

    /** "1" to "11", as on the command line. */
    String id();

    String title();

    /** What it measures and how, for the report. */
    String description();

    /** An upper estimate of its runtime, printed before the run starts. */
    Duration estimate(RunConfig config, List<Implementation> implementations);

    /** Runs the scenario for {@link #covered} implementations, at least one. */
    ScenarioReport run(List<Implementation> implementations, BenchContext context) throws Exception;

    /** Whether it runs that implementation: the blocking ones unless it says otherwise. */
    default boolean covers(Implementation implementation) {
        return !implementation.isAsync() && implementation.runsIn(id());
    }

    /** Those of the chosen implementations it runs, in their order. */
    default List<Implementation> covered(List<Implementation> implementations) {
        return implementations.stream().filter(this::covers).toList();
    }

    /** Runs before the first scenario; see {@link LockCycleScenario#warmUp}. Blocking implementations only. */
    static void warmUpJvm(List<Implementation> implementations, BenchContext context) throws Exception {
        LockCycleScenario ownKeys = LockCycleScenario.ownKeys();
        ownKeys.warmUp(ownKeys.covered(implementations), context, context.config().jvmWarmUp());
    }

    /** Its estimated runtime. */
    static Duration warmUpEstimate(RunConfig config, List<Implementation> implementations) {
        long blocking = implementations.stream().filter(implementation -> !implementation.isAsync()).count();
        return config.jvmWarmUp().plusSeconds(3).multipliedBy(blocking);
    }

    /** The scenarios, in order (1, 2 and 3 share a class, and so do 7 and 8). */
    static List<Scenario> all() {
        return List.of(LockCycleScenario.uncontended(), LockCycleScenario.ownKeys(), LockCycleScenario.hotKey(),
                new WatchdogScenario(), new WaitersScenario(), new TwoProcessScenario(),
                AsyncCycleScenario.distinctKeys(), AsyncCycleScenario.hotKey(), new RenewalAtScaleScenario(),
                new CapacityScenario(), new SemaphoreScenario());
    }
}
