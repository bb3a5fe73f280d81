package dev.distlock.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A TCP proxy on a loopback port in front of another loopback port, for network-fault tests: it can add latency,
 * drop every connection, and blackhole traffic (accept and read bytes but forward nothing, in either direction).
 * Two threads per direction per connection; meant for a handful of test connections.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;

    private final int targetPort;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private volatile long latencyNanos;

    private volatile boolean blackhole;

    private volatile boolean blackholeReplies;

    /** Numbers (in accept order, from 0) of the connections that are blackholed on their own. */
    private final Set<Integer> blackholed = ConcurrentHashMap.newKeySet();

    private int accepted; // only the acceptor thread

    private volatile boolean closed;

    private TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + this.server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy on a free loopback port, forwarding to {@code 127.0.0.1:targetPort}. */
    public static TcpProxy start(int targetPort) {
        try {
            return new TcpProxy(targetPort);
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start a TCP proxy", ex);
        }
    }

    /** The loopback port clients connect to. */
    public int port() {
        return this.server.getLocalPort();
    }

    /** Delays every byte by this much, in each direction, counted from when the proxy read it. */
    public void latency(Duration latency) {
        this.latencyNanos = latency.toNanos();
    }

    /** While on, bytes are read and thrown away in both directions; connections stay open and new ones are accepted. */
    public void blackhole(boolean on) {
        this.blackhole = on;
    }

    /**
     * While on, requests reach the server but its replies are read and thrown away: the server acts, the client never
     * hears of it. Connections stay open.
     */
    public void blackholeReplies(boolean on) {
        this.blackholeReplies = on;
    }

    /**
     * Blackholes one connection, by its number in accept order (from 0), as {@link #blackhole(boolean)} does all: a
     * stalled connection beside healthy ones, e.g. a client's pub/sub connection beside its command connection.
     */
    public void blackhole(int connection, boolean on) {
        if (on) {
            this.blackholed.add(connection);
        }
        else {
            this.blackholed.remove(connection);
        }
    }

    /** Closes every open connection, as a network failure or a restarted load balancer would. */
    public void dropConnections() {
        for (Socket socket : this.sockets) {
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
                int number = this.accepted++;
                pump(client, upstream, number, false);
                pump(upstream, client, number, true);
            }
            catch (IOException ex) {
                if (this.closed) {
                    return;
                }
            }
        }
    }

    /**
     * Forwards {@code from} to {@code to}: one thread reads, and a second writes each chunk when its latency, counted
     * from when it was read, has passed. So latency delays every byte by the same amount, as a slow network does,
     * rather than queueing each chunk behind the previous one's delay.
     */
    private void pump(Socket from, Socket to, int connection, boolean replies) {
        BlockingQueue<Chunk> line = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                int read;
                while ((read = in.read(buffer)) != -1) {
                    if (this.blackhole || this.blackholed.contains(connection)
                            || (replies && this.blackholeReplies)) {
                        continue;
                    }
                    line.add(new Chunk(System.nanoTime() + this.latencyNanos, Arrays.copyOf(buffer, read)));
                }
            }
            catch (IOException ex) {
                // the connection was dropped or closed
            }
            finally {
                line.add(Chunk.END);
            }
        }, "tcp-proxy-read-" + from.getPort());
        Thread writer = new Thread(() -> {
            try (OutputStream out = to.getOutputStream()) {
                while (true) {
                    Chunk chunk = line.take();
                    if (chunk == Chunk.END) {
                        return;
                    }
                    long wait = chunk.dueNanos() - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            }
            catch (IOException | InterruptedException ex) {
                // the connection was dropped or closed
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "tcp-proxy-write-" + to.getPort());
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    /** Bytes read, and when they are due to be written. */
    private record Chunk(long dueNanos, byte[] bytes) {

        static final Chunk END = new Chunk(0, new byte[0]);
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
        dropConnections();
    }
}
