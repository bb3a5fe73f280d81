package dev.distlock.bench.redis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import dev.distlock.test.RedisBackend;
import dev.distlock.test.RedisNodeConfig;

/**
 * Which redis-server the benchmark runs on: a dynamically linked build with jemalloc, as production images ship
 * (Debian's {@code /usr/bin/redis-server}, which {@code .ci/run} installs), when the machine has one; else the static
 * binary of {@code org.signal:embedded-redis}, whose libc allocator makes Lua scripts about 40% dearer, and the report
 * says so.
 *
 * @param config how to start it
 * @param executable the binary, or null for the embedded one
 */
public record RedisBuild(RedisNodeConfig config, Path executable) {

    /** Debian's package, the production build on this kind of machine. */
    public static final Path DEBIAN = Path.of("/usr/bin/redis-server");

    /** The production build when {@code candidate} is an executable file, else the embedded binary. */
    public static RedisBuild choose(Path candidate) {
        RedisNodeConfig config = RedisNodeConfig.defaults().backend(RedisBackend.BINARY);
        if (candidate != null && Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
            return new RedisBuild(config.launchedWith(candidate, Map.of()), candidate);
        }
        return new RedisBuild(config, null);
    }

    /**
     * What the report says of the server: version and allocator (from {@code INFO server} and {@code INFO memory}),
     * and where the binary comes from.
     */
    public String describe(String version, String allocator) {
        String origin = (this.executable != null) ? this.executable + ", dynamically linked"
                : "the static binary of org.signal:embedded-redis: no jemalloc redis-server was found at "
                        + DEBIAN + ", so Lua-heavy rows cost more Redis CPU than on a production build";
        return version + ", mem_allocator " + allocator + " (" + origin + "; 127.0.0.1, no persistence)";
    }
}
