package dev.distlock.test;

/** Starts a node on the backend its config (or the environment) asks for. */
final class Launcher {

    private Launcher() {
    }

    static RedisNode launch(RedisNodeConfig config) {
        if (config.sentinelConfig() != null || config.tls() != null) {
            return BinaryRedisNode.start(config);
        }
        RedisBackend backend = config.backend().orElseGet(RedisBackend::configured).resolve();
        return backend == RedisBackend.CONTAINER ? ContainerRedisNode.start(config) : BinaryRedisNode.start(config);
    }
}
