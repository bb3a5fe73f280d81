package dev.distlock.test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable description of a node to start: extra redis.conf directives, client credentials,
 * timeouts and an optional backend override. Every {@code with}-style method returns a copy.
 *
 * <pre>{@code
 * RedisNodeConfig.defaults().requirePass("secret").directive("maxmemory 10mb")
 * }</pre>
 *
 * <p>Directives are applied after the module's own defaults ({@code --save "" --appendonly no ...}),
 * so they may override them. Persistence must stay off: {@link RedisNode#restart()} relies on it.
 */
public final class RedisNodeConfig {

    private static final RedisNodeConfig DEFAULTS = new RedisNodeConfig(
            List.of(), null, null, null, Duration.ofSeconds(5), Duration.ofSeconds(15), null, Map.of(), null, null);

    private final List<List<String>> directives;
    private final RedisBackend backend;
    private final String user;
    private final String password;
    private final Duration callTimeout;
    private final Duration startTimeout;
    private final Path executable;
    private final Map<String, String> environment;
    private final String sentinelConfig;
    private final Tls tls;

    private RedisNodeConfig(List<List<String>> directives, RedisBackend backend, String user, String password,
            Duration callTimeout, Duration startTimeout, Path executable, Map<String, String> environment,
            String sentinelConfig, Tls tls) {
        this.tls = tls;
        this.executable = executable;
        this.sentinelConfig = sentinelConfig;
        this.environment = Map.copyOf(environment);
        this.directives = List.copyOf(directives);
        this.backend = backend;
        this.user = user;
        this.password = password;
        this.callTimeout = callTimeout;
        this.startTimeout = startTimeout;
    }

    /** No extra directives, no credentials, 5 s call timeout, 15 s start timeout, backend from the environment. */
    public static RedisNodeConfig defaults() {
        return DEFAULTS;
    }

    /**
     * Adds one redis.conf line, e.g. {@code "maxmemory 10mb"} or {@code "save \"\""}. The line is split
     * on whitespace; double or single quotes group words (backslash escapes inside double quotes).
     */
    public RedisNodeConfig directive(String line) {
        List<String> words = Directives.split(line);
        if (words.isEmpty()) {
            throw new IllegalArgumentException("empty directive");
        }
        return withDirective(words);
    }

    /** Adds one directive given as name and values, no quoting needed, e.g. {@code ("requirepass", "p w")}. */
    public RedisNodeConfig directive(String name, String... values) {
        List<String> words = new ArrayList<>();
        words.add(Objects.requireNonNull(name, "name"));
        words.addAll(List.of(values));
        return withDirective(words);
    }

    /** Adds several redis.conf lines, see {@link #directive(String)}. */
    public RedisNodeConfig directives(String... lines) {
        RedisNodeConfig config = this;
        for (String line : lines) {
            config = config.directive(line);
        }
        return config;
    }

    /** Starts the server with {@code requirepass password}; {@link RedisNode#call} then authenticates. */
    public RedisNodeConfig requirePass(String password) {
        return directive("requirepass", password);
    }

    /**
     * Credentials {@link RedisNode#call} sends with {@code AUTH} ({@code user} may be null for the default
     * user). Only needed for ACL users: a {@code requirepass} directive is picked up by itself.
     */
    public RedisNodeConfig auth(String user, String password) {
        return new RedisNodeConfig(directives, backend, user, Objects.requireNonNull(password, "password"),
                callTimeout, startTimeout, executable, environment, sentinelConfig, tls);
    }

    /** Overrides the {@code distlock.test.redis} setting for this node. */
    public RedisNodeConfig backend(RedisBackend backend) {
        return new RedisNodeConfig(directives, Objects.requireNonNull(backend, "backend"), user, password,
                callTimeout, startTimeout, executable, environment, sentinelConfig, tls);
    }

    /** Connect and read timeout of {@link RedisNode#call(String...)}; default 5 s. */
    public RedisNodeConfig callTimeout(Duration timeout) {
        return new RedisNodeConfig(directives, backend, user, password, positive(timeout), startTimeout, executable,
                environment, sentinelConfig, tls);
    }

    /** How long a start, restart or replica sync may take before it fails; default 15 s. */
    public RedisNodeConfig startTimeout(Duration timeout) {
        return new RedisNodeConfig(directives, backend, user, password, callTimeout, positive(timeout), executable,
                environment, sentinelConfig, tls);
    }

    /**
     * Runs another redis-server binary (binary backend only), with extra environment variables: for example
     * Debian's dynamically linked {@code /usr/bin/redis-server} under libfaketime, which the static embedded binary
     * cannot load.
     */
    public RedisNodeConfig launchedWith(Path executable, Map<String, String> environment) {
        return new RedisNodeConfig(directives, RedisBackend.BINARY, user, password, callTimeout, startTimeout,
                Objects.requireNonNull(executable, "executable"), environment, sentinelConfig, tls);
    }

    /**
     * Runs the node as a Sentinel (binary backend only): {@code configText} becomes {@code sentinel.conf} in the
     * node's temp directory, written once, so that Sentinel can rewrite it and a restarted Sentinel remembers its
     * state, and the server is started as {@code redis-server <dir>/sentinel.conf ... --sentinel}.
     */
    RedisNodeConfig sentinel(String configText) {
        return new RedisNodeConfig(directives, RedisBackend.BINARY, user, password, callTimeout, startTimeout,
                executable, environment, Objects.requireNonNull(configText, "configText"), tls);
    }

    /**
     * Makes the node TLS-only (binary backend only): no plain port, its {@link RedisNode#port()} is the TLS port,
     * serving {@code files}' server certificate and trusting their authority. With {@code clientAuth} it demands a
     * client certificate ({@code tls-auth-clients yes}). {@link RedisNode#call} then speaks TLS with the client
     * certificate, and {@link RedisNode#uri()} is {@code rediss://}. For replication or Cluster over TLS add the
     * directives {@code tls-replication yes} and {@code tls-cluster yes}.
     */
    public RedisNodeConfig tls(TlsFiles files, boolean clientAuth) {
        return new RedisNodeConfig(directives, RedisBackend.BINARY, user, password, callTimeout, startTimeout,
                executable, environment, sentinelConfig, new Tls(Objects.requireNonNull(files, "files"), clientAuth));
    }

    /** The TLS set-up of a TLS-only node, null for a plain one. */
    public Tls tls() {
        return tls;
    }

    /** A TLS-only node's certificates, and whether it demands client certificates. */
    public record Tls(TlsFiles files, boolean clientAuth) {

        /** The redis-server arguments that serve TLS, and only TLS, on {@code port}. */
        List<String> arguments(int port) {
            return List.of("--port", "0", "--tls-port", Integer.toString(port),
                    "--tls-cert-file", files.serverCertificate().toString(),
                    "--tls-key-file", files.serverKey().toString(),
                    "--tls-ca-cert-file", files.caCertificate().toString(),
                    "--tls-auth-clients", clientAuth ? "yes" : "no");
        }
    }

    /** The initial sentinel.conf of a Sentinel, null for a plain server. */
    String sentinelConfig() {
        return sentinelConfig;
    }

    /** The redis-server binary to run, or null for the embedded one. */
    public Path executable() {
        return executable;
    }

    /** Extra environment variables of the redis-server process. */
    public Map<String, String> environment() {
        return environment;
    }

    /** The extra directives as redis.conf lines, in order. */
    public List<String> directives() {
        List<String> lines = new ArrayList<>();
        for (List<String> words : directives) {
            lines.add(Directives.join(words));
        }
        return List.copyOf(lines);
    }

    /** Whether the node runs as a Redis Cluster node ({@code cluster-enabled yes}): it listens on a bus port too. */
    boolean clusterEnabled() {
        for (List<String> words : directives) {
            if (words.size() == 2 && words.get(0).equalsIgnoreCase("cluster-enabled")
                    && words.get(1).equalsIgnoreCase("yes")) {
                return true;
            }
        }
        return false;
    }

    /** The backend override, empty when the node follows {@link RedisBackend#configured()}. */
    public Optional<RedisBackend> backend() {
        return Optional.ofNullable(backend);
    }

    /** The ACL user {@code call} authenticates as, or null for the default user. */
    public String user() {
        return user;
    }

    /** The password {@code call} authenticates with: from {@link #auth}, else the last {@code requirepass}, else null. */
    public String password() {
        if (password != null) {
            return password;
        }
        String found = null;
        for (List<String> words : directives) {
            if (words.size() == 2 && words.get(0).equalsIgnoreCase("requirepass")) {
                found = words.get(1).isEmpty() ? null : words.get(1);
            }
        }
        return found;
    }

    public Duration callTimeout() {
        return callTimeout;
    }

    public Duration startTimeout() {
        return startTimeout;
    }

    /** The directives as redis-server command-line arguments ({@code --name value...}). */
    List<String> arguments() {
        List<String> arguments = new ArrayList<>();
        for (List<String> words : directives) {
            arguments.add("--" + words.get(0));
            arguments.addAll(words.subList(1, words.size()));
        }
        return arguments;
    }

    private RedisNodeConfig withDirective(List<String> words) {
        List<List<String>> all = new ArrayList<>(directives);
        all.add(List.copyOf(words));
        return new RedisNodeConfig(all, backend, user, password, callTimeout, startTimeout, executable, environment,
                sentinelConfig, tls);
    }

    private static Duration positive(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return timeout;
    }

    @Override
    public String toString() {
        return "RedisNodeConfig" + directives() + (backend == null ? "" : " backend=" + backend)
                + (tls == null ? "" : " tls" + (tls.clientAuth() ? " with client certificates" : ""));
    }
}
