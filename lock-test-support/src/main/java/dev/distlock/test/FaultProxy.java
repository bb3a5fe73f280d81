package dev.distlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a loopback port in front of a Redis port, for the wire faults of a fault explorer. Unlike
 * {@link TcpProxy}'s blackhole, no fault here throws away bytes of a connection that stays open, so the client's
 * request/reply pairing (RESP has no ids) is never silently shifted:
 * <ul>
 * <li>{@link #delayReplies}: replies read during a window are held back past a delay; later replies queue behind
 * them, as on a real congested link (a reply "delayed past the command timeout");</li>
 * <li>{@link #dropRepliesThenReset}: requests still reach Redis, which acts on them, but replies are thrown away for a
 * while and then the connections are reset (a reply lost with its connection);</li>
 * <li>{@link #reset}: every connection is reset (RST);</li>
 * <li>{@link #stall}: nothing moves in either direction for a while, then everything is delivered in order.</li>
 * </ul>
 * One thread per direction per connection; meant for a handful of connections.
 */
public final class FaultProxy implements AutoCloseable {

    private final ServerSocket server;

    private final int targetPort;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile long replyDelayUntil;

    private volatile long replyDelayNanos;

    private volatile long dropRepliesUntil;

    private volatile long stallUntil;

    private volatile boolean closed;

    private FaultProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(this::acceptLoop, "fault-proxy-" + this.server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy on a free loopback port, forwarding to {@code 127.0.0.1:targetPort}. */
    public static FaultProxy start(int targetPort) {
        try {
            return new FaultProxy(targetPort);
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a fault proxy", ex);
        }
    }

    /** The loopback port clients connect to. */
    public int port() {
        return this.server.getLocalPort();
    }

    /** Replies that Redis sends during the next {@code window} reach the client {@code delay} late. */
    public void delayReplies(Duration window, Duration delay) {
        this.replyDelayNanos = delay.toNanos();
        this.replyDelayUntil = System.nanoTime() + window.toNanos();
    }

    /** Replies are thrown away for {@code window} (requests still reach Redis), then every connection is reset. */
    public void dropRepliesThenReset(Duration window) throws InterruptedException {
        this.dropRepliesUntil = System.nanoTime() + window.toNanos();
        Thread.sleep(window.toMillis());
        reset();
    }

    /** Nothing is forwarded in either direction for {@code duration}; then the held bytes flow on, in order. */
    public void stall(Duration duration) {
        this.stallUntil = System.nanoTime() + duration.toNanos();
    }

    /** Resets every open connection (an RST, as a restarted load balancer or a broken link gives). */
    public void reset() {
        for (Socket socket : this.sockets) {
            try {
                socket.setSoLinger(true, 0);
            }
            catch (IOException ex) {
                // closed already
            }
            closeQuietly(socket);
        }
    }

    /** How many connections are open now. */
    public int connectionCount() {
        return this.sockets.size() / 2;
    }

    private void acceptLoop() {
        while (!this.closed) {
            try {
                Socket client = this.server.accept();
                Socket upstream = new Socket(InetAddress.getByName("127.0.0.1"), this.targetPort);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                this.sockets.add(client);
                this.sockets.add(upstream);
                pump(client, upstream, false);
                pump(upstream, client, true);
            }
            catch (IOException ex) {
                if (this.closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to, boolean replies) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) != -1) {
                    long now = System.nanoTime();
                    if (replies && now < this.dropRepliesUntil) {
                        continue; // the connection is reset at the end of the window, so no pairing shifts
                    }
                    long sendAt = now;
                    if (replies && now < this.replyDelayUntil) {
                        sendAt = now + this.replyDelayNanos;
                    }
                    sendAt = Math.max(sendAt, this.stallUntil);
                    sleepUntil(sendAt);
                    while (System.nanoTime() < this.stallUntil) { // a stall that began while this chunk waited
                        sleepUntil(this.stallUntil);
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (IOException | InterruptedException ex) {
                // the connection was reset or closed
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "fault-proxy-pump-" + from.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }

    private void closeQuietly(Socket socket) {
        this.sockets.remove(socket);
        try {
            socket.close();
        }
        catch (IOException ex) {
            // already closed
        }
    }

    @Override
    public void close() {
        this.closed = true;
        try {
            this.server.close();
        }
        catch (IOException ex) {
            // already closed
        }
        reset();
    }
}
