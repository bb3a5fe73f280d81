package dev.distlock.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server executable the binary backend runs for a whole test run: the one named by the system property
 * {@value #PROPERTY} (else the environment variable {@value #ENVIRONMENT_VARIABLE}), for example
 * {@code /usr/bin/valkey-server} or a name looked up on PATH; by default the static redis-server {@value #VERSION}
 * from {@code org.signal:embedded-redis}, extracted once per JVM. Single nodes, replicas, Sentinels, Cluster nodes and
 * Twemproxy's shards all run it; only a node given its own executable ({@link RedisNodeConfig#launchedWith}) does
 * not. The first use logs which server and version the run uses.
 *
 * <p>A setting that names no executable fails every start, naming the setting; with {@value #SKIP_IF_MISSING} set to
 * true (a build's extra run on another server, which a machine may not have), every test that starts a server is
 * skipped instead, saying why.
 */
final class RedisBinary {

    /** The version of the embedded binary (and of the container image). */
    static final String VERSION = "7.0.15";

    static final String PROPERTY = "distlock.test.redis-server";
    static final String ENVIRONMENT_VARIABLE = "DISTLOCK_TEST_REDIS_SERVER";
    static final String SKIP_IF_MISSING = "distlock.test.redis-server.skip-if-missing";

    private static final Logger LOG = LoggerFactory.getLogger(RedisBinary.class);
    private static final Pattern VERSION_LINE = Pattern.compile("^(\\S+) server v=(\\S+)");
    private static final long VERSION_TIMEOUT_SECONDS = 10;

    private static Path executable;
    private static String server;

    private RedisBinary() {
    }

    /** The executable every binary node runs unless its config names its own (see the class comment). */
    static synchronized Path executable() {
        if (executable == null) {
            Optional<Path> chosen = chosen();
            Path path = chosen.orElseGet(() -> extract("redis-server-" + VERSION + "-" + platform()));
            server = describe(path);
            executable = path;
            LOG.info("Tests start {} ({}{})", server, path, chosen.isPresent() ? ", chosen by " + PROPERTY
                    : ", the embedded binary; -D" + PROPERTY + "=<path> runs another");
        }
        return executable;
    }

    /** Name and version of the server the run uses, e.g. "Valkey 8.0.1" (see {@link #describe(Path)}). */
    static synchronized String server() {
        executable();
        return server;
    }

    /** Whether {@value #PROPERTY} (or {@value #ENVIRONMENT_VARIABLE}) chooses the server, not the default. */
    static boolean isChosen() {
        return setting() != null;
    }

    /**
     * The executable {@value #PROPERTY} names, empty when unset.
     *
     * @throws IllegalStateException naming the setting when it names no executable file
     * @throws TestAbortedException instead, when {@value #SKIP_IF_MISSING} is true
     */
    static Optional<Path> chosen() {
        String value = setting();
        if (value == null) {
            return Optional.empty();
        }
        String name = value.trim();
        Path path = name.contains(File.separator) ? Paths.get(name) : onPath(name);
        if (path == null || !Files.isRegularFile(path) || !Files.isExecutable(path)) {
            String missing = source() + "=" + value + " names no executable file"
                    + (name.contains(File.separator) ? "" : " on PATH");
            if (Boolean.getBoolean(SKIP_IF_MISSING)) {
                throw new TestAbortedException("Skipped: " + missing + ", and " + SKIP_IF_MISSING
                        + " is set (.ci/run installs the servers the build runs its tests on)");
            }
            throw new IllegalStateException(missing + "; install that server or unset " + source()
                    + " to run the embedded redis-server " + VERSION);
        }
        return Optional.of(path.toAbsolutePath());
    }

    /**
     * The server's name and version from its {@code --version} line ({@code Redis server v=7.0.15 ...},
     * {@code Valkey server v=8.0.1 ...}), e.g. "Redis 7.0.15"; the line itself when it has another form.
     */
    static String describe(Path executable) {
        String line;
        try {
            Process process = new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
            try (InputStream in = process.getInputStream()) {
                if (!process.waitFor(VERSION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IllegalStateException(executable + " --version did not finish within "
                            + VERSION_TIMEOUT_SECONDS + " s");
                }
                line = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + executable + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + executable + " --version", e);
        }
        Matcher matcher = VERSION_LINE.matcher(line);
        return matcher.find() ? matcher.group(1) + " " + matcher.group(2) : line;
    }

    private static String setting() {
        String value = System.getProperty(PROPERTY);
        if (value == null || value.isBlank()) {
            value = System.getenv(ENVIRONMENT_VARIABLE);
        }
        return value == null || value.isBlank() ? null : value;
    }

    private static String source() {
        String value = System.getProperty(PROPERTY);
        return value == null || value.isBlank() ? ENVIRONMENT_VARIABLE : PROPERTY;
    }

    private static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path candidate = Paths.get(dir.isEmpty() ? "." : dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static Path extract(String resource) {
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("resource " + resource
                        + " not found; is org.signal:embedded-redis:0.9.1 on the classpath?");
            }
            Path file = Files.createTempFile("distlock-" + resource + "-", "");
            file.toFile().deleteOnExit();
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            if (!file.toFile().setExecutable(true, true)) {
                throw new IllegalStateException("cannot make " + file + " executable");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract " + resource, e);
        }
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osPart = os.contains("linux") ? "linux" : os.contains("mac") || os.contains("darwin") ? "darwin" : null;
        String archPart = arch.equals("amd64") || arch.equals("x86_64") ? "amd64"
                : arch.equals("aarch64") || arch.equals("arm64") ? "arm64" : null;
        if (osPart == null || archPart == null) {
            throw new IllegalStateException("no bundled redis-server for " + os + "/" + arch + "; run with -D"
                    + PROPERTY + "=<a redis-server or valkey-server>, or -D" + RedisBackend.PROPERTY
                    + "=container and a Docker engine");
        }
        return osPart + "-" + archPart;
    }
}
