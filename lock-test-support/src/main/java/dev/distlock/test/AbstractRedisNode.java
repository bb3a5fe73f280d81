package dev.distlock.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;

/** What both backends share: port, credentials, {@link #call} and the readiness check. */
abstract class AbstractRedisNode implements RedisNode {

    /**
     * Arguments every backend passes to redis-server before the caller's directives: no persistence
     * (so restarts come back empty), no protected mode, no delay before a replica's first sync, and
     * the DEBUG command enabled.
     */
    static final List<String> COMMON_ARGUMENTS = List.of("--save", "", "--appendonly", "no",
            "--protected-mode", "no", "--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes");

    private static final Duration PING_TIMEOUT = Duration.ofMillis(500);

    protected final RedisNodeConfig config;
    private final int port;

    AbstractRedisNode(RedisNodeConfig config, int port) {
        this.config = config;
        this.port = port;
    }

    @Override
    public final int port() {
        return port;
    }

    @Override
    public final String user() {
        return config.user();
    }

    @Override
    public final String password() {
        return config.password();
    }

    @Override
    public final String call(String... command) {
        return call(config.callTimeout(), command);
    }

    @Override
    public final String call(Duration timeout, String... command) {
        return RespClient.call(host(), port, config.tls() == null ? null : config.tls().files().clientContext(), user(),
                password(), timeout, command);
    }

    @Override
    public String uri() {
        return (config.tls() == null ? "redis://" : "rediss://") + host() + ":" + port;
    }

    /**
     * Polls PING until the server answers (any reply but LOADING counts, so a wrong password does not
     * hang here), {@code alive} turns false, or the start timeout passes. Returns whether it answered.
     */
    final boolean awaitAnswer(BooleanSupplier alive) {
        return Poll.until(config.startTimeout(), () -> !alive.getAsBoolean() || answersPing()) && alive.getAsBoolean();
    }

    private boolean answersPing() {
        try {
            call(PING_TIMEOUT, "PING");
            return true;
        } catch (RedisCallException e) {
            return !e.getMessage().startsWith("LOADING");
        } catch (UncheckedIOException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + uri() + "]";
    }
}
