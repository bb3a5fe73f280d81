package dev.distlock.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Twemproxy ({@code nutcracker}) on a free loopback port in front of {@code shards} independent Redis servers
 * (binary backend). Start one with {@link RedisServers#startTwemproxy(int)}; the shards and the nutcracker process
 * belong to that {@code RedisServers} and stop with it (and the JVM's shutdown hook kills a leftover process).
 *
 * <p>The pool is configured with {@code hash: fnv1a_64}, {@code distribution: ketama}, {@code redis: true},
 * {@code hash_tag: "{}"}, {@code auto_eject_hosts: false}, {@code timeout: 2000} and servers
 * {@code 127.0.0.1:<port>:1 shard<i>}; ketama places keys by the server names, so which shard a key lands on does
 * not depend on the ports. Twemproxy's {@code fnv1a_64} is computed in 32 bits (with the 64-bit constants cut
 * down), which spreads similar keys badly: of two shards, {@code key-0} ... {@code key-99} all land on one, and
 * {@code lock:order-1} ... {@code lock:order-50} split 41 to 9. Varied keys (UUIDs, distinct hash tags) spread.
 *
 * <p>What nutcracker 0.5.0 (Debian's package) does with the commands a lock library cares about, probed by
 * {@code TwemproxyTopologyTest}:
 * <ul>
 *   <li>{@code EVAL} and {@code EVALSHA} need at least one key and go to the shard of the <em>first</em> key;
 *       with {@code numkeys 0} nutcracker closes the connection. The other keys are not checked: a script that
 *       touches a key of another shard silently reads and writes it on the first key's shard, so every key of
 *       a script must share one hash tag.</li>
 *   <li>{@code EVALSHA} answers {@code NOSCRIPT} unless the script was loaded on that shard; scripts can only
 *       be loaded by {@code EVAL} through the proxy (or {@code SCRIPT LOAD} on each shard directly).</li>
 *   <li>{@code SCRIPT} (LOAD, EXISTS, FLUSH), {@code PUBLISH}, {@code SUBSCRIBE} and {@code INFO} are not
 *       supported: nutcracker logs "parsed unsupported command" and closes the connection, no error reply.
 *       Pub/sub wake-ups therefore cannot go through Twemproxy.</li>
 *   <li>{@code PING} is answered by nutcracker itself, even when the shards are down.</li>
 * </ul>
 */
public final class TwemproxyTopology implements AutoCloseable {

    /** The message tests give when they skip because nutcracker is not installed. */
    public static final String SKIP_MESSAGE = "install nutcracker (apt-get install nutcracker) to run the Twemproxy tests";

    /** System property naming the nutcracker executable; by default it is looked up on PATH and in the sbin folders. */
    public static final String EXECUTABLE_PROPERTY = "distlock.test.nutcracker";

    static final int TIMEOUT_MILLIS = 2000;

    private static final Logger LOG = LoggerFactory.getLogger(TwemproxyTopology.class);
    private static final List<String> SEARCH_PATH = List.of("/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/local/bin",
            "/usr/bin");
    private static final int PORT_ATTEMPTS = 5;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration PING_TIMEOUT = Duration.ofMillis(500);

    private final Path executable;
    private final List<RedisNode> shards;
    private final int port;
    private final int statsPort;
    private final Path dir;
    private Process process;
    private boolean closed;

    private TwemproxyTopology(Path executable, List<RedisNode> shards, int port, int statsPort, Path dir) {
        this.executable = executable;
        this.shards = List.copyOf(shards);
        this.port = port;
        this.statsPort = statsPort;
        this.dir = dir;
    }

    /** Whether a nutcracker executable was found; tests skip with {@link #SKIP_MESSAGE} when it was not. */
    public static boolean isAvailable() {
        return executable().isPresent();
    }

    /** The nutcracker executable: {@value #EXECUTABLE_PROPERTY} if set, else the first on PATH or the sbin folders. */
    static Optional<Path> executable() {
        String configured = System.getProperty(EXECUTABLE_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Paths.get(configured.trim())).filter(Files::isExecutable);
        }
        List<String> folders = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            folders.addAll(List.of(path.split(File.pathSeparator)));
        }
        folders.addAll(SEARCH_PATH);
        for (String folder : folders) {
            if (!folder.isEmpty()) {
                Path candidate = Paths.get(folder, "nutcracker");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }

    static TwemproxyTopology start(RedisServers servers, int shardCount) {
        if (shardCount < 1) {
            throw new IllegalArgumentException("shards must be positive: " + shardCount);
        }
        Path nutcracker = executable().orElseThrow(() -> new IllegalStateException("Twemproxy's nutcracker executable"
                + " was not found on PATH, in /usr/sbin or /usr/local/sbin, nor set with -D" + EXECUTABLE_PROPERTY
                + ": " + SKIP_MESSAGE));
        List<RedisNode> shards = servers.startIndependent(shardCount, RedisNodeConfig.defaults().backend(RedisBackend.BINARY));
        PortInUseException clash = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            TwemproxyTopology proxy = new TwemproxyTopology(nutcracker, shards, FreePort.pick(), FreePort.pick(),
                    Reaper.createTempDirectory());
            try {
                proxy.launch();
                return servers.own(proxy);
            } catch (PortInUseException e) {
                clash = e;
                proxy.close();
            } catch (RuntimeException e) {
                proxy.close();
                throw e;
            }
        }
        throw new IllegalStateException("no usable port for nutcracker after " + PORT_ATTEMPTS + " attempts", clash);
    }

    /** Always {@code "127.0.0.1"}. */
    public String host() {
        return FreePort.LOOPBACK;
    }

    /** The port clients connect to. */
    public int port() {
        return port;
    }

    /** The Redis servers behind the proxy; shard i is named {@code shard<i>} in the config. */
    public List<RedisNode> shards() {
        return shards;
    }

    /** The operating-system pid of the nutcracker process. */
    public synchronized long pid() {
        return process.pid();
    }

    /** Whether the nutcracker process is alive. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Runs one command through the proxy, rendered as {@link RedisNode#call(String...)} renders replies. */
    public String call(String... command) {
        return call(CALL_TIMEOUT, command);
    }

    /** {@link #call(String...)} with an explicit connect/read timeout. */
    public String call(Duration timeout, String... command) {
        return RespClient.call(host(), port, null, null, null, timeout, command);
    }

    /** The shard that holds {@code key} ({@code EXISTS} on each), or null if none does. */
    public RedisNode shardHolding(String key) {
        RedisNode holder = null;
        for (RedisNode shard : shards) {
            if (!"0".equals(shard.call("EXISTS", key))) {
                if (holder != null) {
                    throw new IllegalStateException(key + " exists on " + holder + " and on " + shard);
                }
                holder = shard;
            }
        }
        return holder;
    }

    /** Stops nutcracker (SIGTERM, then SIGKILL) and deletes its files; the shards stop with their RedisServers. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (process != null && process.isAlive()) {
                process.destroy();
                if (!waitFor(process, EXIT_TIMEOUT)) {
                    process.destroyForcibly();
                    if (!waitFor(process, EXIT_TIMEOUT)) {
                        throw new IllegalStateException("nutcracker pid " + process.pid() + " did not exit");
                    }
                }
            }
            if (process != null) {
                Reaper.untrack(process);
            }
        } finally {
            Reaper.delete(dir);
        }
    }

    @Override
    public String toString() {
        List<Integer> ports = new ArrayList<>();
        for (RedisNode shard : shards) {
            ports.add(shard.port());
        }
        return "TwemproxyTopology[127.0.0.1:" + port + " -> shards " + ports + "]";
    }

    private synchronized void launch() {
        Path config = dir.resolve("nutcracker.yml");
        List<String> command = List.of(executable.toString(), "-c", config.toString(), "-o", logFile().toString(),
                "-s", Integer.toString(statsPort), "-a", FreePort.LOOPBACK);
        try {
            Files.writeString(config, config());
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("nutcracker.out").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        }
        Reaper.track(process);
        Process started = process;
        if (Poll.until(START_TIMEOUT, () -> !started.isAlive() || answersPing()) && started.isAlive()) {
            LOG.debug("nutcracker pid {} is up on port {} in front of {}", started.pid(), port, shards);
            return;
        }
        boolean exited = !started.isAlive();
        started.destroyForcibly();
        waitFor(started, EXIT_TIMEOUT);
        String output = output();
        if (exited && output.contains("Address already in use")) {
            throw new PortInUseException("port " + port + " or " + statsPort + " is taken by another process");
        }
        throw new IllegalStateException("nutcracker on port " + port
                + (exited ? " exited with code " + started.exitValue() + " while starting"
                        : " did not answer PING within " + START_TIMEOUT)
                + "; command: " + command + "\nconfig:\n" + config() + "output:\n" + output);
    }

    private String config() {
        StringBuilder yaml = new StringBuilder()
                .append("distlock:\n")
                .append("  listen: ").append(FreePort.LOOPBACK).append(':').append(port).append('\n')
                .append("  hash: fnv1a_64\n")
                .append("  distribution: ketama\n")
                .append("  redis: true\n")
                .append("  hash_tag: \"{}\"\n")
                .append("  auto_eject_hosts: false\n")
                .append("  timeout: ").append(TIMEOUT_MILLIS).append('\n')
                .append("  servers:\n");
        for (int i = 0; i < shards.size(); i++) {
            RedisNode shard = shards.get(i);
            yaml.append("   - ").append(shard.host()).append(':').append(shard.port()).append(":1 shard").append(i)
                    .append('\n');
        }
        return yaml.toString();
    }

    private boolean answersPing() {
        try {
            return "PONG".equals(call(PING_TIMEOUT, "PING"));
        } catch (RedisCallException | UncheckedIOException e) {
            return false;
        }
    }

    private Path logFile() {
        return dir.resolve("nutcracker.log");
    }

    private String output() {
        StringBuilder output = new StringBuilder();
        for (Path file : List.of(dir.resolve("nutcracker.out"), logFile())) {
            try {
                output.append(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            } catch (IOException e) {
                output.append("(no ").append(file.getFileName()).append(": ").append(e).append(")\n");
            }
        }
        return output.toString();
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for nutcracker pid " + process.pid(), e);
        }
    }

    /** The chosen port was grabbed by someone else between picking and binding it. */
    private static final class PortInUseException extends IllegalStateException {

        private static final long serialVersionUID = 1L;

        PortInUseException(String message) {
            super(message);
        }
    }
}
