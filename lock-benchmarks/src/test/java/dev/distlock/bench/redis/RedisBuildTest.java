package dev.distlock.bench.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;

/** The benchmark runs on a jemalloc production build where the machine has one, and says which build it ran on. */
class RedisBuildTest {

    @Test
    void theProductionBuildIsChosenWhenPresentAndNamedWithItsAllocator() {
        RedisBuild build = RedisBuild.choose(RedisBuild.DEBIAN);
        Assumptions.assumeTrue(build.executable() != null, "needs Debian's redis-server (.ci/run installs it)");
        try (RedisServers servers = RedisServers.create()) {
            RedisNode node = servers.start(build.config());
            RedisProbe probe = new RedisProbe(node);
            assertThat(probe.memoryAllocator()).startsWith("jemalloc");
            assertThat(build.describe(probe.serverVersion(), probe.memoryAllocator()))
                .contains("mem_allocator jemalloc").contains("/usr/bin/redis-server");
        }
    }

    @Test
    void withoutOneTheEmbeddedBinaryRunsAndTheReportSaysSo() {
        RedisBuild build = RedisBuild.choose(Path.of("/nonexistent/redis-server"));
        assertThat(build.executable()).isNull();
        try (RedisServers servers = RedisServers.create()) {
            RedisNode node = servers.start(build.config());
            RedisProbe probe = new RedisProbe(node);
            assertThat(probe.memoryAllocator()).startsWith("libc");
            assertThat(build.describe(probe.serverVersion(), probe.memoryAllocator()))
                .contains("embedded-redis").contains("no jemalloc redis-server was found");
        }
    }
}
