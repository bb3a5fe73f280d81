package dev.distlock.bench.harness;

import java.util.List;
import java.util.function.ToDoubleFunction;

import dev.distlock.bench.redis.ServerUsage;

/** The measured iterations of one implementation in one scenario, and the figures the report shows. */
public record Measurement(List<IterationSample> samples) {

    public Summary cyclesPerSecond() {
        return summarise(sample -> sample.load().cyclesPerSecond());
    }

    public Summary cycleLatencyMicros(double percentile) {
        return summarise(sample -> Latencies.percentileMicros(sample.load().cycleLatency(), percentile));
    }

    public Summary handOffMicros(double percentile) {
        return summarise(sample -> Latencies.percentileMicros(sample.load().handOff(), percentile));
    }

    /** The fewest cycles any one thread or chain completed in an iteration. */
    public Summary fewestCycles() {
        return summarise(sample -> sample.load().fewestCycles());
    }

    public long handOffCount() {
        return this.samples.stream().mapToLong(sample -> sample.load().handOff().getTotalCount()).sum();
    }

    public long cycles() {
        return this.samples.stream().mapToLong(sample -> sample.load().cycles()).sum();
    }

    public long errors() {
        return this.samples.stream().mapToLong(sample -> sample.load().errors()).sum();
    }

    public long violations() {
        return this.samples.stream().mapToLong(sample -> sample.load().violations()).sum();
    }

    public String firstError() {
        return this.samples.stream()
            .map(sample -> sample.load().firstError())
            .filter(error -> error != null)
            .findFirst()
            .orElse(null);
    }

    /** Garbage collection time in this JVM during the measured iterations, in milliseconds. */
    public long gcMillis() {
        return this.samples.stream().mapToLong(IterationSample::gcMillis).sum();
    }

    /** Redis over all measured iterations. */
    public ServerUsage server() {
        return this.samples.stream().map(IterationSample::server).reduce(ServerUsage.NONE, ServerUsage::plus);
    }

    /** Every command call (including those inside scripts) per lock cycle. */
    public double commandsPerCycle() {
        return perCycle(server().totalCalls());
    }

    /** EVAL/EVALSHA/FCALL calls per lock cycle. */
    public double scriptCallsPerCycle() {
        return perCycle(server().scriptCalls());
    }

    /** Microseconds Redis spent running scripts (inner commands included) per lock cycle. */
    public double scriptMicrosPerCycle() {
        return perCycle(server().scriptMicros());
    }

    /** Redis CPU microseconds per lock cycle. */
    public double redisCpuMicrosPerCycle() {
        return perCycle(server().cpuMicros());
    }

    /** Redis CPU microseconds per lock cycle, iteration by iteration: the spread of {@link #redisCpuMicrosPerCycle}. */
    public Summary redisCpuMicrosPerCycleByIteration() {
        return summarise(sample -> (sample.load().cycles() == 0) ? Double.NaN
                : (double) sample.server().cpuMicros() / sample.load().cycles());
    }

    /** How busy Redis was while the load ran, in cores: its CPU time over the load's wall time. */
    public Summary redisCores() {
        return summarise(sample -> sample.server().cpuMicros() * 1000.0 / sample.load().elapsedNanos());
    }

    /** How busy this JVM was while the load ran, in cores, all its threads counted. */
    public Summary jvmCores() {
        return summarise(sample -> (sample.jvmCpuNanos() < 0) ? Double.NaN
                : (double) sample.jvmCpuNanos() / sample.load().elapsedNanos());
    }

    /** This JVM's CPU microseconds per lock cycle (all its threads), or NaN where the platform does not tell. */
    public double jvmCpuMicrosPerCycle() {
        if (this.samples.stream().anyMatch(sample -> sample.jvmCpuNanos() < 0)) {
            return Double.NaN;
        }
        return perCycle(this.samples.stream().mapToLong(IterationSample::jvmCpuNanos).sum() / 1000.0);
    }

    private double perCycle(double amount) {
        long cycles = cycles();
        return (cycles == 0) ? Double.NaN : amount / cycles;
    }

    private Summary summarise(ToDoubleFunction<IterationSample> figure) {
        return Summary.of(this.samples.stream().mapToDouble(figure).toArray());
    }
}
