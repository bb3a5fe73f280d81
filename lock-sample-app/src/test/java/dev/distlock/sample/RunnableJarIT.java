package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged sample is a runnable Spring Boot jar: its manifest names Boot's launcher and the sample's main class,
 * and {@code java -jar} starts the application (on its embedded Redis and a free port) until it says it started.
 */
class RunnableJarIT {

    private static final Duration STARTUP = Duration.ofSeconds(120);

    @Test
    void javaDashJarStartsTheSample(@TempDir Path directory) throws Exception {
        String packaged = System.getProperty("sampleJar");
        assumeTrue(packaged != null, "runs in failsafe's integration-test phase, after the jar is packaged");
        Path jar = Path.of(packaged);
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            assertThat(manifest.getMainAttributes().getValue("Main-Class"))
                .startsWith("org.springframework.boot.loader");
            assertThat(manifest.getMainAttributes().getValue("Start-Class"))
                .isEqualTo(SampleApplication.class.getName());
        }
        Path log = directory.resolve("sample.log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(List.of(java.toString(), "-jar", jar.toString(), "--server.port=0",
                "--server.address=127.0.0.1"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
        try {
            long deadline = System.nanoTime() + STARTUP.toNanos();
            while (!read(log).contains("Started SampleApplication") && process.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(read(log)).as("the sample's output").contains("Started SampleApplication");
        }
        finally {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private static String read(Path log) throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }
}
