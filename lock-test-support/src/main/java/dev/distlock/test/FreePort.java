package dev.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;

/** Picks currently free TCP ports on 127.0.0.1. A port can still be taken before it is used: callers retry. */
final class FreePort {

    static final String LOOPBACK = "127.0.0.1";

    /** A Redis Cluster node's bus port is its port + this (Redis's CLUSTER_PORT_INCR). */
    static final int CLUSTER_BUS_OFFSET = 10_000;

    /** The highest port a Redis Cluster node can take: its bus port must be a port too. */
    static final int MAX_CLUSTER_NODE_PORT = 65_535 - CLUSTER_BUS_OFFSET;

    private static final int CLUSTER_CANDIDATES = 50;

    private FreePort() {
    }

    /**
     * Ports for Redis Cluster nodes, from {@code candidates}: one whose bus port is free too; a candidate above
     * {@link #MAX_CLUSTER_NODE_PORT} (free ports picked one after another in a JVM rise past it) is replaced by a random
     * free one below it. Free now: either can still be taken before the node binds it (callers retry).
     */
    static IntSupplier forClusterNodes(IntSupplier candidates) {
        return () -> {
            for (int i = 0; i < CLUSTER_CANDIDATES; i++) {
                int port = candidates.getAsInt();
                if (port > MAX_CLUSTER_NODE_PORT) {
                    port = ThreadLocalRandom.current().nextInt(20_000, MAX_CLUSTER_NODE_PORT + 1);
                    if (!isFree(port)) {
                        continue;
                    }
                }
                if (isFree(port + CLUSTER_BUS_OFFSET)) {
                    return port;
                }
            }
            throw new IllegalStateException("no free port with a free cluster bus port on " + LOOPBACK + " in "
                    + CLUSTER_CANDIDATES + " candidates");
        };
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int pick() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + LOOPBACK, e);
        }
    }
}
