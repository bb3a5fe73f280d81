package dev.distlock.bench.harness;

import dev.distlock.bench.redis.ServerUsage;

/** One measured iteration: what the clients did and what Redis did meanwhile. */
public record IterationSample(LoadResult load, ServerUsage server) {
}
