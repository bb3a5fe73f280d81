package dev.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A redis-server child process with its own temp directory; its output goes to {@code redis.log} there. */
final class BinaryRedisNode extends AbstractRedisNode {

    private static final Logger LOG = LoggerFactory.getLogger(BinaryRedisNode.class);
    private static final int PORT_ATTEMPTS = 5;
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_OUTPUT_CHARS = 8_000;

    private final Path dir;
    private Process process;
    private boolean paused;
    private boolean closed;

    private BinaryRedisNode(RedisNodeConfig config, int port, Path dir) {
        super(config, port);
        this.dir = dir;
    }

    /** Starts a server on a free port, retrying with another port if the chosen one gets taken. */
    static RedisNode start(RedisNodeConfig config) {
        return start(config, FreePort::pick);
    }

    /** Starts a server on a port from {@code ports}, retrying with the next one if the chosen one gets taken. */
    static RedisNode start(RedisNodeConfig config, IntSupplier candidates) {
        IntSupplier ports = config.clusterEnabled() ? FreePort.forClusterNodes(candidates) : candidates;
        PortInUseException clash = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            BinaryRedisNode node = new BinaryRedisNode(config, ports.getAsInt(), Reaper.createTempDirectory());
            try {
                node.launch();
                return node;
            } catch (PortInUseException e) {
                clash = e;
                node.close();
            } catch (RuntimeException e) {
                node.close();
                throw e;
            }
        }
        throw new IllegalStateException("no usable port after " + PORT_ATTEMPTS + " attempts", clash);
    }

    @Override
    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException(this + " was never started");
        }
        return process.pid();
    }

    @Override
    public synchronized void pause() {
        if (!isRunning()) {
            throw new IllegalStateException(this + " is not running");
        }
        if (!paused) {
            signal("STOP");
            awaitStoppedState(true);
            paused = true;
        }
    }

    @Override
    public synchronized void resume() {
        if (paused && isRunning()) {
            signal("CONT");
            awaitStoppedState(false);
        }
        paused = false;
    }

    @Override
    public synchronized void kill() {
        if (isRunning()) {
            process.destroyForcibly();
            awaitExit();
        }
    }

    @Override
    public synchronized void stop() {
        if (isRunning()) {
            resume();
            process.destroy();
            if (!waitFor(process, EXIT_TIMEOUT)) {
                LOG.warn("{} ignored SIGTERM for {}; killing it", this, EXIT_TIMEOUT);
                process.destroyForcibly();
            }
            awaitExit();
        }
    }

    @Override
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        stop();
        launch();
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            Reaper.delete(dir);
        }
    }

    private void launch() {
        writeSentinelConfig();
        Process started;
        try {
            ProcessBuilder builder = new ProcessBuilder(command())
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(logFile().toFile());
            builder.environment().putAll(config.environment());
            started = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + executable(), e);
        }
        if (process != null) {
            Reaper.untrack(process);
        }
        Reaper.track(started);
        process = started;
        paused = false;
        if (awaitAnswer(started::isAlive)) {
            LOG.debug("{} pid {} is up on port {}{}", executable(), started.pid(), port(),
                    config.sentinelConfig() != null ? " as a Sentinel" : "");
            return;
        }
        boolean exited = !started.isAlive();
        kill();
        String output = output();
        // Redis 7 words a taken port "bind: Address already in use", and a cluster node's taken bus port "bind: Address
        // in use ... (cluster), aborting"
        if (exited && (output.contains("Address already in use") || output.contains("Address in use"))) {
            throw new PortInUseException("port " + port() + " or its cluster bus port is taken by another process");
        }
        throw new IllegalStateException(executable().getFileName() + " on port " + port()
                + (exited ? " exited with code " + started.exitValue() + " while starting"
                        : " did not answer PING within " + config.startTimeout())
                + "; command: " + command() + "\noutput:\n" + output);
    }

    /** The config's own executable, else the run's (see {@link RedisBinary}). */
    private Path executable() {
        return config.executable() != null ? config.executable() : RedisBinary.executable();
    }

    private List<String> command() {
        List<String> command = new ArrayList<>(List.of(executable().toString()));
        if (config.sentinelConfig() != null) {
            command.add(sentinelConfigFile().toString());
        }
        command.addAll(config.tls() != null ? config.tls().arguments(port())
                : List.of("--port", Integer.toString(port())));
        command.addAll(List.of("--bind", host(), "--dir", dir.toString()));
        command.addAll(COMMON_ARGUMENTS);
        command.addAll(config.arguments());
        if (config.sentinelConfig() != null) {
            command.add("--sentinel");
        }
        return command;
    }

    /** A Sentinel's config file is written once: Sentinel rewrites it, and a restarted Sentinel resumes from it. */
    private void writeSentinelConfig() {
        Path file = sentinelConfigFile();
        if (config.sentinelConfig() != null && !Files.exists(file)) {
            try {
                Files.writeString(file, config.sentinelConfig());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }
    }

    private Path sentinelConfigFile() {
        return dir.resolve("sentinel.conf");
    }

    private void awaitExit() {
        if (!waitFor(process, EXIT_TIMEOUT)) {
            throw new IllegalStateException("redis-server pid " + process.pid() + " did not exit within " + EXIT_TIMEOUT);
        }
        Reaper.untrack(process);
        paused = false;
    }

    private void signal(String signal) {
        long pid = process.pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            if (!waitFor(kill, EXIT_TIMEOUT)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish");
            }
            if (kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: "
                        + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill -" + signal + " " + pid, e);
        }
    }

    /** On Linux, waits until /proc shows the process stopped (or not); elsewhere kill(1) has to do. */
    private void awaitStoppedState(boolean stopped) {
        Path stat = Paths.get("/proc", Long.toString(process.pid()), "stat");
        if (Files.exists(stat) && !Poll.until(EXIT_TIMEOUT, () -> isStopped(stat) == stopped || !process.isAlive())) {
            throw new IllegalStateException("pid " + process.pid() + " did not " + (stopped ? "stop" : "continue"));
        }
    }

    private static boolean isStopped(Path stat) {
        try {
            String line = Files.readString(stat);
            return line.charAt(line.lastIndexOf(')') + 2) == 'T';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean waitFor(Process process, Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for pid " + process.pid(), e);
        }
    }

    private Path logFile() {
        return dir.resolve("redis.log");
    }

    private String output() {
        try {
            String output = new String(Files.readAllBytes(logFile()), StandardCharsets.UTF_8);
            return output.length() <= MAX_OUTPUT_CHARS ? output : "..." + output.substring(output.length() - MAX_OUTPUT_CHARS);
        } catch (IOException e) {
            return "(no output: " + e + ")";
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
