package dev.distlock.reliability.mixed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Version N beside N-1 (docs/upgrading.md): a {@link MixedVersionWorker} built from the previous layout's commit (named
 * in {@code mixed-version/previous-layout.properties}) and one built from the current code run in two JVMs against one
 * Redis, contending on every lock type and waking each other; each checks its critical sections with Redis and exits
 * non-zero on any violation. The previous code is taken with {@code git archive} and compiled here: without git, the
 * repository or the ref the test fails, it never skips.
 */
@RedisTest
class MixedVersionTest {

    private static final String CONTENTION_SECONDS = "8";

    private static final String WAKE_SECONDS = "5";

    /** The workers' logging: warnings, and distlock's own INFO lines (lost leases, failed renewals). */
    private static final String LOGGING = """
            <configuration>
              <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n</pattern></encoder>
              </appender>
              <logger name="dev.distlock" level="INFO"/>
              <root level="WARN"><appender-ref ref="out"/></root>
            </configuration>
            """;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void thePreviousLayoutsCodeAndTheCurrentOneShareOneRedisWithoutAViolation(RedisNode redis, @TempDir Path work)
            throws Exception {
        long start = System.nanoTime();
        Path root = PreviousLayout.repositoryRoot(Path.of(""));
        String commit = PreviousLayout.resolve(root, PreviousLayout.properties());
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> dependencies = PreviousLayout.dependencies(classpath);
        Path previous = PreviousLayout.build(root, commit, work, dependencies);
        long built = System.nanoTime();
        List<String> previousClasspath = new ArrayList<>(List.of(previous.toString()));
        previousClasspath.addAll(dependencies);

        Path logging = Files.writeString(work.resolve("logback.xml"), LOGGING, StandardCharsets.UTF_8);
        Process old = worker(String.join(File.pathSeparator, previousClasspath), redis, "previous", logging, work);
        Process current = worker(classpath, redis, "current", logging, work);
        boolean oldEnded = old.waitFor(90, TimeUnit.SECONDS);
        boolean currentEnded = current.waitFor(Math.max(1, 90 - (System.nanoTime() - built) / 1_000_000_000),
                TimeUnit.SECONDS);
        old.destroyForcibly();
        current.destroyForcibly();
        String report = "previous layout = " + commit + "\n--- previous ---\n" + log(work, "previous") + "\n--- current ---\n"
                + log(work, "current");
        System.out.println("[mixed-version] built the previous layout in " + (built - start) / 1_000_000
                + " ms, ran both in " + (System.nanoTime() - built) / 1_000_000 + " ms\n" + report);
        assertThat(oldEnded && currentEnded).as("both workers end within 90 s\n%s", report).isTrue();
        assertThat(old.exitValue()).as("the previous layout's worker exits 0\n%s", report).isZero();
        assertThat(current.exitValue()).as("the current worker exits 0\n%s", report).isZero();
    }

    @Test
    void aRefThatGitDoesNotKnowFailsTheTestNamingTheRef(@TempDir Path work) throws Exception {
        Path root = PreviousLayout.repositoryRoot(Path.of(""));
        Properties missing = new Properties();
        missing.setProperty("tag", "no-such-layout-tag");
        missing.setProperty("commit", "0123456789abcdef0123456789abcdef01234567");
        assertThatThrownBy(() -> PreviousLayout.resolve(root, missing)).isInstanceOf(AssertionError.class)
            .hasMessageContaining("neither tag 'no-such-layout-tag' nor commit '0123456789abcdef");
        assertThatThrownBy(() -> PreviousLayout.repositoryRoot(Path.of("/"))).isInstanceOf(AssertionError.class)
            .hasMessageContaining("no .git was found above /");
    }

    @Test
    void theTrackedRefNamesATagAndAFullCommit() throws Exception {
        Properties ref = PreviousLayout.properties();
        assertThat(ref.getProperty("tag")).isNotBlank();
        assertThat(ref.getProperty("commit")).matches("[0-9a-f]{40}");
    }

    private static Process worker(String classpath, RedisNode redis, String label, Path logging, Path work)
            throws IOException {
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx192m",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dlogback.configurationFile=" + logging, "-cp",
                classpath, MixedVersionWorker.class.getName(), Integer.toString(redis.port()), "mixed", label, "2",
                CONTENTION_SECONDS, WAKE_SECONDS);
        return new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(work.resolve(label + ".log").toFile()).start();
    }

    private static String log(Path work, String label) throws IOException {
        Path file = work.resolve(label + ".log");
        return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "(no output)";
    }
}
