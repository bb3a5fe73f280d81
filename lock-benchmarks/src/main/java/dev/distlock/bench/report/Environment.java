package dev.distlock.bench.report;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import org.springframework.core.SpringVersion;
import org.springframework.integration.redis.util.RedisLockRegistry;

/** The machine, the JVM and the library versions, printed at the top of every report. */
public final class Environment {

    private Environment() {
    }

    public static String machine() {
        Runtime runtime = Runtime.getRuntime();
        String memory = "unknown";
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            memory = String.format("%.1f GiB", os.getTotalMemorySize() / (1024.0 * 1024 * 1024));
        }
        return "- Machine: " + runtime.availableProcessors() + " cores (" + cpuModel() + "), " + memory + " RAM, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch") + "\n- JVM: " + System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version") + " (" + System.getProperty("java.vm.vendor")
                + "), max heap " + runtime.maxMemory() / (1024 * 1024) + " MiB, arguments "
                + ManagementFactory.getRuntimeMXBean().getInputArguments() + "\n";
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo"))
                .stream()
                .filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).trim())
                .findFirst()
                .orElse("unknown CPU");
        }
        catch (IOException | RuntimeException ex) {
            return "unknown CPU";
        }
    }

    /** Library versions as resolved on the class path. */
    public static Map<String, String> libraries(String redisServer) {
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("distlock lock-core", maven("dev.distlock", "lock-core"));
        versions.put("Redisson", maven("org.redisson", "redisson"));
        versions.put("Spring Integration Redis", String.valueOf(
                RedisLockRegistry.class.getPackage().getImplementationVersion()));
        versions.put("Spring Data Redis", maven("org.springframework.data", "spring-data-redis"));
        versions.put("Lettuce", maven("io.lettuce", "lettuce-core"));
        versions.put("Spring Framework", String.valueOf(SpringVersion.getVersion()));
        versions.put("Netty", maven("io.netty", "netty-common"));
        versions.put("redis-server", redisServer);
        return versions;
    }

    private static String maven(String group, String artifact) {
        String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        try (InputStream in = Environment.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        }
        catch (IOException ex) {
            return "unknown";
        }
    }
}
