package dev.distlock.test;

import java.util.Locale;

/**
 * Where Redis servers come from. The default is read from the system property
 * {@value #PROPERTY}, else the environment variable {@value #ENVIRONMENT_VARIABLE}, else {@link #AUTO}.
 * A single node can override it with {@link RedisNodeConfig#backend(RedisBackend)}. Which server executable the
 * binary backend runs is a separate setting, {@code distlock.test.redis-server} (see {@link RedisServers#server()});
 * when it is set, {@link #AUTO} means {@link #BINARY}.
 */
public enum RedisBackend {

    /**
     * A server executable run as a child process: the one {@code distlock.test.redis-server} names, else the
     * redis-server 7.0.15 binary shipped in {@code org.signal:embedded-redis}.
     */
    BINARY,

    /** A Testcontainers {@code redis:7.0.15} container; fails if no Docker engine is available. */
    CONTAINER,

    /**
     * {@link #CONTAINER} when a Docker engine is available and {@code distlock.test.redis-server} chooses no server,
     * {@link #BINARY} otherwise.
     */
    AUTO;

    public static final String PROPERTY = "distlock.test.redis";
    public static final String ENVIRONMENT_VARIABLE = "DISTLOCK_TEST_REDIS";

    /** The backend selected by {@value #PROPERTY} / {@value #ENVIRONMENT_VARIABLE}, {@link #AUTO} if unset. */
    public static RedisBackend configured() {
        String value = System.getProperty(PROPERTY);
        String source = PROPERTY;
        if (value == null || value.isBlank()) {
            value = System.getenv(ENVIRONMENT_VARIABLE);
            source = ENVIRONMENT_VARIABLE;
        }
        if (value == null || value.isBlank()) {
            return AUTO;
        }
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    source + "=" + value + " is not one of: binary, container, auto", e);
        }
    }

    /**
     * The concrete backend to use: {@link #BINARY} or {@link #CONTAINER}. Only {@code AUTO} and
     * {@code CONTAINER} look for Docker (once per JVM, see {@link DockerProbe}).
     *
     * @throws IllegalStateException for {@code CONTAINER} when no Docker engine is available, or when
     *         {@code distlock.test.redis-server} chooses a server executable (a container would not run it)
     */
    RedisBackend resolve() {
        switch (this) {
            case CONTAINER:
                String chosen = RedisBinary.isChosen() ? "; and " + RedisBinary.PROPERTY + " / "
                        + RedisBinary.ENVIRONMENT_VARIABLE + " chooses a server executable, which only the 'binary' "
                        + "backend runs" : "";
                if (!DockerProbe.isDockerAvailable()) {
                    throw new IllegalStateException("Redis backend 'container' was requested but no Docker engine"
                            + " is available (no DOCKER_HOST, no Docker socket, or Testcontainers cannot reach it);"
                            + " set " + PROPERTY + " / " + ENVIRONMENT_VARIABLE + " to 'binary' or 'auto'" + chosen);
                }
                if (!chosen.isEmpty()) {
                    throw new IllegalStateException("Redis backend 'container' was requested" + chosen
                            + "; unset one of the two");
                }
                return CONTAINER;
            case AUTO:
                return !RedisBinary.isChosen() && DockerProbe.isDockerAvailable() ? CONTAINER : BINARY;
            default:
                return BINARY;
        }
    }
}
