package dev.distlock.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Decides whether a Docker engine is available, without touching Testcontainers when there is
 * plainly no engine: Testcontainers' own probe tries several strategies and logs errors when it
 * finds none, which would slow down and clutter every binary-backed run.
 */
final class DockerProbe {

    private static Boolean available;

    private DockerProbe() {
    }

    /**
     * Whether a Docker engine is usable, decided once per JVM. Testcontainers is asked only when there
     * is a hint of an engine: DOCKER_HOST or a Testcontainers override, ~/.testcontainers.properties,
     * or a known Docker socket (Windows: always).
     */
    static synchronized boolean isDockerAvailable() {
        if (available == null) {
            available = hasEngineHint() && ContainerRedisNode.isDockerAvailable();
        }
        return available;
    }

    static boolean hasEngineHint() {
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("win")) {
            return true;
        }
        for (String variable : List.of("DOCKER_HOST", "DOCKER_CONTEXT", "TESTCONTAINERS_HOST_OVERRIDE",
                "TESTCONTAINERS_DOCKER_SOCKET_OVERRIDE")) {
            String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                return true;
            }
        }
        return socketCandidates().stream().anyMatch(Files::exists);
    }

    private static List<Path> socketCandidates() {
        Path home = Paths.get(System.getProperty("user.home", "/nonexistent"));
        List<Path> candidates = new ArrayList<>(List.of(
                Paths.get("/var/run/docker.sock"),
                home.resolve(".testcontainers.properties"),
                home.resolve(".docker/run/docker.sock"),
                home.resolve(".docker/desktop/docker.sock"),
                home.resolve(".colima/default/docker.sock"),
                home.resolve(".rd/docker.sock")));
        String runtimeDir = System.getenv("XDG_RUNTIME_DIR");
        if (runtimeDir != null && !runtimeDir.isBlank()) {
            candidates.add(Paths.get(runtimeDir, "docker.sock"));
        }
        return candidates;
    }
}
