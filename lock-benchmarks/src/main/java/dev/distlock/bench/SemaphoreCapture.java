package dev.distlock.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.bench.clients.ClientSettings;
import dev.distlock.bench.clients.Implementation;
import dev.distlock.bench.clients.SemaphoreClient;

/**
 * What a real client sends for one uncontended permit cycle, read off a redis-server under {@code MONITOR}: the
 * semaphore's setup (Redisson's {@code trySetPermits}), the acquire and the release, each with its script's exact text
 * (from the {@code SCRIPT LOAD} or {@code EVAL} the client sent) and its keys and arguments as sent. Used by
 * {@link SemaphoreLayoutCost} so that no script or argument is transcribed by hand.
 */
final class SemaphoreCapture {

    /** The semaphore's name during the capture, replaced by each measured semaphore's name. */
    static final String MARKER = "semcapturemarker";

    /** One character per byte: what the driver's Lettuce codec sends, so every string here is its bytes. */
    static final java.nio.charset.Charset BYTES = StandardCharsets.ISO_8859_1;

    private static final Pattern LINE = Pattern.compile("^\\+(\\d+)\\.(\\d+) \\[\\d+ ([^\\]]+)\\] (.*)$");

    private SemaphoreCapture() {
    }

    /** One request a client sent: its arguments (the command name first) and when Redis ran it (epoch ms). */
    record Sent(List<String> args, long atMillis, String client) {

        String name() {
            return this.args.get(0).toUpperCase(java.util.Locale.ROOT);
        }
    }

    /** One script call: the text, keys and arguments as sent, and when it ran (epoch ms). */
    record Call(String text, String sha, List<String> keys, List<String> args, long atMillis) {
    }

    /** One client's capture: setup calls (may be empty), the acquire and the release. */
    record Captured(Implementation implementation, List<Call> setup, Call acquire, Call release) {
    }

    /** Captures both clients, one after the other, on a server at {@code port}. */
    static Map<Implementation, Captured> capture(int port, ClientSettings settings) throws Exception {
        Map<Implementation, Captured> captured = new LinkedHashMap<>();
        for (Implementation implementation : List.of(Implementation.DISTLOCK, Implementation.REDISSON)) {
            List<Sent> sent;
            try (Socket monitor = monitor(port)) {
                Thread.sleep(100);
                try (SemaphoreClient client = SemaphoreClient.open(implementation, settings)) {
                    client.prepare(MARKER);
                    client.acquire(MARKER).release();
                }
                Thread.sleep(300);
                monitor.shutdownOutput();
                sent = read(monitor);
            }
            captured.put(implementation, calls(implementation, sent));
        }
        return captured;
    }

    private static Socket monitor(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(2_000);
        OutputStream out = socket.getOutputStream();
        out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /** Reads what MONITOR printed until the socket has been quiet for its timeout. */
    private static List<Sent> read(Socket socket) throws IOException {
        List<Sent> sent = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = in.readLine()) != null) {
                Matcher matcher = LINE.matcher(line);
                if (matcher.find() && !matcher.group(3).equals("lua")) {
                    long atMillis = Long.parseLong(matcher.group(1)) * 1000
                            + Long.parseLong(matcher.group(2)) / 1000;
                    sent.add(new Sent(unquote(matcher.group(4)), atMillis, matcher.group(3)));
                }
            }
        }
        catch (java.net.SocketTimeoutException quiet) {
            // everything sent has been printed
        }
        return sent;
    }

    /**
     * The arguments of a MONITOR line: quoted strings as Redis's sdscatrepr escapes them (every byte outside printable
     * ASCII as {@code \xhh}). Each byte becomes one ISO-8859-1 character, so that binary arguments (Redisson's permit
     * ids) and UTF-8 script texts go back to Redis byte for byte through {@link #BYTES}.
     */
    static List<String> unquote(String text) {
        List<String> args = new ArrayList<>();
        java.io.ByteArrayOutputStream current = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (current == null) {
                if (c == '"') {
                    current = new java.io.ByteArrayOutputStream();
                }
                continue;
            }
            if (c == '"') {
                args.add(current.toString(BYTES));
                current = null;
            }
            else if (c == '\\') {
                char e = text.charAt(++i);
                switch (e) {
                    case 'n' -> current.write('\n');
                    case 'r' -> current.write('\r');
                    case 't' -> current.write('\t');
                    case 'a' -> current.write(7);
                    case 'b' -> current.write('\b');
                    case 'x' -> {
                        current.write(Integer.parseInt(text.substring(i + 1, i + 3), 16));
                        i += 2;
                    }
                    default -> current.write(e);
                }
            }
            else {
                current.write(c);
            }
        }
        return args;
    }

    /** The script calls on the captured semaphore: the last two are the acquire and the release, the rest setup. */
    private static Captured calls(Implementation implementation, List<Sent> sent) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Sent one : sent) {
            if (one.name().equals("SCRIPT") && one.args().size() == 3) {
                texts.put(sha(one.args().get(2)), one.args().get(2));
            }
            else if (one.name().equals("EVAL")) {
                texts.put(sha(one.args().get(1)), one.args().get(1));
            }
        }
        List<Call> calls = new ArrayList<>();
        for (Sent one : sent) {
            if (!one.name().equals("EVALSHA") && !one.name().equals("EVAL")) {
                continue;
            }
            String text = one.name().equals("EVAL") ? one.args().get(1)
                    : texts.get(one.args().get(1).toLowerCase(java.util.Locale.ROOT));
            int keyCount = Integer.parseInt(one.args().get(2));
            List<String> keys = one.args().subList(3, 3 + keyCount);
            if (text == null || keys.stream().noneMatch(key -> key.contains(MARKER))) {
                continue;
            }
            Call call = new Call(text, sha(text), List.copyOf(keys),
                    List.copyOf(one.args().subList(3 + keyCount, one.args().size())), one.atMillis());
            // a NOSCRIPT answer makes the client send the same call again as EVAL: count it once
            if (!calls.isEmpty() && calls.get(calls.size() - 1).keys().equals(call.keys())
                    && calls.get(calls.size() - 1).args().equals(call.args())) {
                calls.remove(calls.size() - 1);
            }
            calls.add(call);
        }
        if (calls.size() < 2) {
            throw new IllegalStateException(implementation.label() + ": expected an acquire and a release, captured "
                    + calls.size() + " script calls of " + sent.size() + " requests");
        }
        int n = calls.size();
        return new Captured(implementation, List.copyOf(calls.subList(0, n - 2)), calls.get(n - 2),
                calls.get(n - 1));
    }

    static String sha(String text) {
        try {
            return HexFormat.of()
                .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(BYTES)));
        }
        catch (java.security.NoSuchAlgorithmException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** The names a distlock script's header declares ({@code -- ARGV[n] NAME}), in ARGV order. */
    static List<String> declaredArguments(String text) {
        Pattern declaration = Pattern.compile("^-- ARGV\\[(\\d+)\\]\\s+([A-Z_]+)\\b");
        List<String> names = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("--") || line.startsWith("--#")) {
                break;
            }
            Matcher matcher = declaration.matcher(line);
            if (matcher.find()) {
                names.add(matcher.group(2));
            }
        }
        return names;
    }
}
