package dev.distlock.test;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;

/**
 * Waits for replicas to apply what their master has written, before a test fails the master over. {@code WAIT} does
 * not do here: it counts only the writes of the connection that runs it, and a test's writes come from its clients.
 */
public final class Replication {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    private Replication() {
    }

    /**
     * Reads {@code master}'s {@code master_repl_offset} and waits until every one of {@code replicas} reports a
     * {@code slave_repl_offset} at least that far: every write the master had made by then is applied on them.
     *
     * @throws IllegalStateException with each node's replication section, if that does not happen within
     *                               {@code timeout}
     */
    public static void awaitCaughtUp(RedisNode master, List<RedisNode> replicas, Duration timeout) {
        long written = offset(master, "master_repl_offset");
        if (written < 0) {
            throw new IllegalStateException(master + " reports no master_repl_offset: is it a master?");
        }
        if (!Poll.until(timeout, POLL_INTERVAL,
                () -> replicas.stream().allMatch(replica -> offset(replica, "slave_repl_offset") >= written))) {
            StringBuilder state = new StringBuilder();
            for (RedisNode node : replicas) {
                state.append("  ").append(node).append(": ").append(replicationInfo(node)).append('\n');
            }
            throw new IllegalStateException("replicas of " + master + " did not reach offset " + written + " within "
                    + timeout + ":\n" + state);
        }
    }

    /** The offset named {@code field} in the node's {@code INFO replication}, or -1 if it has none or is down. */
    private static long offset(RedisNode node, String field) {
        try {
            String value = Replies.info(node.call(Duration.ofSeconds(1), "INFO", "replication")).get(field);
            return (value == null) ? -1 : Long.parseLong(value);
        }
        catch (RedisCallException | UncheckedIOException ex) {
            return -1;
        }
    }

    private static String replicationInfo(RedisNode node) {
        try {
            return node.call(Duration.ofSeconds(1), "INFO", "replication").replace("\r\n", " ");
        }
        catch (RuntimeException ex) {
            return ex.getMessage();
        }
    }
}
