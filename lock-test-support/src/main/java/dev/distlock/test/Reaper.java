package dev.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Remembers the redis-server processes and temp directories this JVM created and, from a shutdown
 * hook, kills the surviving processes and deletes the directories, so an aborted test run leaves
 * nothing behind. (A JVM killed with SIGKILL runs no hooks; nothing can be done about that.)
 */
final class Reaper {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Reaper::reap, "distlock-redis-reaper"));
    }

    private Reaper() {
    }

    static void track(Process process) {
        PROCESSES.add(process);
    }

    static void untrack(Process process) {
        PROCESSES.remove(process);
    }

    static Path createTempDirectory() {
        try {
            Path dir = Files.createTempDirectory("distlock-redis-");
            DIRECTORIES.add(dir);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory", e);
        }
    }

    /** Deletes {@code dir} with its contents; failures are left to the shutdown hook. */
    static void delete(Path dir) {
        if (deleteRecursively(dir)) {
            DIRECTORIES.remove(dir);
        }
    }

    private static void reap() {
        PROCESSES.forEach(Process::destroyForcibly);
        for (Process process : PROCESSES) {
            try {
                process.waitFor(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        DIRECTORIES.forEach(Reaper::deleteRecursively);
    }

    private static boolean deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            return !Files.exists(dir);
        }
        return !Files.exists(dir);
    }
}
