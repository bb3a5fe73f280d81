package dev.distlock.test;

import java.time.Duration;

/**
 * A running Redis server on 127.0.0.1 started for a test, either a child redis-server process or a
 * container (see {@link RedisBackend}). Obtain one from {@link RedisServers} or {@link RedisExtension}.
 *
 * <p>Servers never persist anything, so a {@link #restart()} always comes back empty. The lifecycle
 * methods are safe to call from any thread; {@link #call} does not block them.
 */
public interface RedisNode extends AutoCloseable {

    /** Always {@code "127.0.0.1"}. */
    default String host() {
        return FreePort.LOOPBACK;
    }

    /** The port; it stays the same across {@link #restart()}. */
    int port();

    /** {@code redis://127.0.0.1:PORT}, without credentials. */
    default String uri() {
        return "redis://" + host() + ":" + port();
    }

    /**
     * The operating-system pid of the current (or, once stopped, the last) redis-server process; it
     * changes on restart.
     *
     * @throws UnsupportedOperationException for container-backed nodes
     */
    long pid();

    /** The ACL user {@link #call} authenticates as, null for the default user. */
    String user();

    /** The password {@link #call} authenticates with, null when the server needs none. */
    String password();

    /**
     * Freezes the server (SIGSTOP / {@code docker pause}): connections are still accepted by the
     * kernel but nothing is answered until {@link #resume()}.
     */
    void pause();

    /** Undoes {@link #pause()} (SIGCONT / {@code docker unpause}); does nothing if not paused. */
    void resume();

    /** Kills the server without letting it clean up (SIGKILL / {@code docker kill}); no-op if not running. */
    void kill();

    /** Shuts the server down gracefully and waits for it to exit; no-op if not running. */
    void stop();

    /**
     * Stops the server if it is running (or paused) and starts it again on the same port, empty.
     * Works after {@link #kill()} and {@link #stop()}, not after {@link #close()}.
     */
    void restart();

    /** Whether the server process (or container) is alive; a paused server counts as running. */
    boolean isRunning();

    /**
     * Runs one command and renders the reply as text: simple and bulk strings as they are, integers in
     * decimal, arrays as their rendered elements joined with {@code "\n"} (nil elements as {@code ""}),
     * a nil reply as {@code null}. Authenticates first when {@link #password()} is set. Uses a fresh
     * connection with the node's call timeout (default 5 s) for connecting and for each read.
     *
     * @throws RedisCallException            when the server answers with an error
     * @throws java.io.UncheckedIOException when the server cannot be reached or does not answer in time
     */
    String call(String... command);

    /** {@link #call(String...)} with an explicit connect/read timeout. */
    String call(Duration timeout, String... command);

    /**
     * One field of a distlock lock hash, as {@code HGET} reads it (see {@link LockFields}); null when absent.
     */
    default String lockField(String key, String field) {
        return LockFields.of(this, key).get(field);
    }

    /** Runs {@code FLUSHALL}. */
    default void flushAll() {
        call("FLUSHALL");
    }

    /** Stops the server and deletes its files. Idempotent; the node cannot be used afterwards. */
    @Override
    void close();
}
