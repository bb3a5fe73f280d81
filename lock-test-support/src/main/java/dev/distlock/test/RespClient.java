package dev.distlock.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A minimal RESP2 client: one short-lived connection per call, so it never holds state between
 * calls and a stopped or paused server costs at most one timeout.
 */
final class RespClient {

    private RespClient() {
    }

    /**
     * Connects (over TLS when {@code tls} is non-null), authenticates when {@code password} is non-null, runs
     * {@code command} and renders the reply as text (see {@link RedisNode#call(String...)}).
     *
     * @throws RedisCallException   on an error reply
     * @throws UncheckedIOException on connection failures and timeouts
     */
    static String call(String host, int port, SSLContext tls, String user, String password, Duration timeout,
            String... command) {
        if (command.length == 0) {
            throw new IllegalArgumentException("command must not be empty");
        }
        int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            plain.setTcpNoDelay(true);
            Socket socket = (tls == null) ? plain : tls.getSocketFactory().createSocket(plain, host, port, true);
            OutputStream out = new BufferedOutputStream(socket.getOutputStream());
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null) {
                send(out, user == null ? new String[] {"AUTH", password} : new String[] {"AUTH", user, password});
                render(read(in));
            }
            send(out, command);
            return render(read(in));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Redis call " + command[0] + " to " + host + ":" + port + " failed: " + e, e);
        }
    }

    private static void send(OutputStream out, String... command) throws IOException {
        out.write(('*' + Integer.toString(command.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String argument : command) {
            byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
            out.write(('$' + Integer.toString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write('\r');
            out.write('\n');
        }
        out.flush();
    }

    /** An error reply; only thrown when it is the top-level reply. */
    private record ErrorReply(String message) {
    }

    /** Reads one reply: String, Long, List, null, or an ErrorReply. */
    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by server");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$':
                return readBulk(in, Integer.parseInt(line));
            case '*':
                return readArray(in, Integer.parseInt(line));
            default:
                throw new IOException("unexpected RESP type '" + (char) type + "' followed by: " + line);
        }
    }

    private static String readBulk(InputStream in, int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        if (bytes.length < length + 2) {
            throw new EOFException("connection closed inside a bulk string");
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }

    private static List<Object> readArray(InputStream in, int count) throws IOException {
        if (count < 0) {
            return null;
        }
        List<Object> elements = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            elements.add(read(in));
        }
        return elements;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int current = in.read();
            if (current < 0) {
                throw new EOFException("connection closed inside a reply");
            }
            if (previous == '\r' && current == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(current);
            previous = current;
        }
    }

    /** Renders a top-level reply; a top-level error is thrown. */
    private static String render(Object reply) {
        if (reply instanceof ErrorReply error) {
            throw new RedisCallException(error.message());
        }
        return reply == null ? null : renderNested(reply);
    }

    private static String renderNested(Object reply) {
        if (reply == null) {
            return "";
        }
        if (reply instanceof ErrorReply error) {
            return error.message();
        }
        if (reply instanceof List<?> elements) {
            List<String> parts = new ArrayList<>();
            for (Object element : elements) {
                parts.add(renderNested(element));
            }
            return String.join("\n", parts);
        }
        return reply.toString();
    }
}
