package dev.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Picks currently free TCP ports on 127.0.0.1. A port can still be taken before it is used: callers retry. */
final class FreePort {

    static final String LOOPBACK = "127.0.0.1";

    private FreePort() {
    }

    static int pick() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByAddress(new byte[] {127, 0, 0, 1}))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free port on " + LOOPBACK, e);
        }
    }
}
