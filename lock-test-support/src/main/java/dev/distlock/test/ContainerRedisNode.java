package dev.distlock.test;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A {@code redis:7.0.15} container whose port 6379 is published on a fixed 127.0.0.1 port, so it
 * keeps its address across {@link #restart()}. Assumes a local Docker engine. This is the only class
 * that touches Testcontainers, so nothing of it is loaded unless the container backend is used.
 */
final class ContainerRedisNode extends AbstractRedisNode {

    static final DockerImageName IMAGE = DockerImageName.parse("redis:" + RedisBinary.VERSION);

    private static final Logger LOG = LoggerFactory.getLogger(ContainerRedisNode.class);
    private static final int REDIS_PORT = 6379;
    private static final int PORT_ATTEMPTS = 3;
    private static final int STOP_TIMEOUT_SECONDS = 10;

    private final GenericContainer<?> container;
    private boolean closed;

    private ContainerRedisNode(RedisNodeConfig config, int port) {
        super(config, port);
        this.container = new GenericContainer<>(IMAGE)
                .withCommand(command(config))
                .withCreateContainerCmdModifier(cmd -> publish(cmd, port))
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1)
                        .withStartupTimeout(config.startTimeout()));
    }

    /** Asks Testcontainers whether a Docker engine is usable. */
    static boolean isDockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    /** Starts a container on a free loopback port, retrying with another port if it gets taken. */
    static RedisNode start(RedisNodeConfig config) {
        RuntimeException clash = null;
        for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
            ContainerRedisNode node = new ContainerRedisNode(config, FreePort.pick());
            try {
                node.container.start();
                node.awaitReady();
                return node;
            } catch (RuntimeException e) {
                node.close();
                if (!isPortClash(e)) {
                    throw e;
                }
                clash = e;
            }
        }
        throw new IllegalStateException("no usable port after " + PORT_ATTEMPTS + " attempts", clash);
    }

    @Override
    public long pid() {
        throw new UnsupportedOperationException("a container-backed node has no local pid");
    }

    @Override
    public synchronized void pause() {
        if (!isRunning()) {
            throw new IllegalStateException(this + " is not running");
        }
        if (!isPaused()) {
            docker().pauseContainerCmd(id()).exec();
        }
    }

    @Override
    public synchronized void resume() {
        if (isPaused()) {
            docker().unpauseContainerCmd(id()).exec();
        }
    }

    @Override
    public synchronized void kill() {
        if (isRunning()) {
            resume();
            docker().killContainerCmd(id()).exec();
            if (!Poll.until(Duration.ofSeconds(STOP_TIMEOUT_SECONDS), () -> !isRunning())) {
                throw new IllegalStateException(this + " is still running after docker kill");
            }
        }
    }

    @Override
    public synchronized void stop() {
        if (isRunning()) {
            resume();
            docker().stopContainerCmd(id()).withTimeout(STOP_TIMEOUT_SECONDS).exec();
        }
    }

    @Override
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        stop();
        docker().startContainerCmd(id()).exec();
        awaitReady();
    }

    @Override
    public synchronized boolean isRunning() {
        InspectContainerResponse.ContainerState state = state();
        return state != null && Boolean.TRUE.equals(state.getRunning());
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            resume();
        } finally {
            closed = true;
            container.stop();
        }
    }

    private void awaitReady() {
        if (!awaitAnswer(this::isRunning)) {
            throw new IllegalStateException("redis container on port " + port() + " did not answer PING within "
                    + config.startTimeout() + "; logs:\n" + container.getLogs());
        }
        LOG.debug("redis container {} is up on port {}", id(), port());
    }

    private boolean isPaused() {
        InspectContainerResponse.ContainerState state = state();
        return state != null && Boolean.TRUE.equals(state.getPaused());
    }

    private InspectContainerResponse.ContainerState state() {
        String id = container.getContainerId();
        return closed || id == null ? null : docker().inspectContainerCmd(id).exec().getState();
    }

    private DockerClient docker() {
        return container.getDockerClient();
    }

    private String id() {
        return container.getContainerId();
    }

    private static String[] command(RedisNodeConfig config) {
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(REDIS_PORT)));
        command.addAll(COMMON_ARGUMENTS);
        command.addAll(config.arguments());
        return command.toArray(new String[0]);
    }

    private static void publish(CreateContainerCmd cmd, int hostPort) {
        ExposedPort redis = ExposedPort.tcp(REDIS_PORT);
        HostConfig hostConfig = cmd.getHostConfig() != null ? cmd.getHostConfig() : HostConfig.newHostConfig();
        cmd.withExposedPorts(redis).withHostConfig(
                hostConfig.withPortBindings(new PortBinding(Ports.Binding.bindIpAndPort(FreePort.LOOPBACK, hostPort), redis)));
    }

    private static boolean isPortClash(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (message.contains("port is already allocated") || message.contains("address already in use")) {
                return true;
            }
        }
        return false;
    }
}
