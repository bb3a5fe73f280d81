package dev.distlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/** The redis-server executable from {@code org.signal:embedded-redis}, extracted once per JVM. */
final class RedisBinary {

    static final String VERSION = "7.0.15";

    private static Path executable;

    private RedisBinary() {
    }

    /** The extracted executable for this OS and architecture (deleted when the JVM exits). */
    static synchronized Path executable() {
        if (executable == null) {
            executable = extract("redis-server-" + VERSION + "-" + platform());
        }
        return executable;
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
            throw new IllegalStateException("no bundled redis-server for " + os + "/" + arch
                    + "; run with -D" + RedisBackend.PROPERTY + "=container and a Docker engine");
        }
        return osPart + "-" + archPart;
    }
}
