package dev.distlock.bench.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Records the commands Redis executes, with {@code MONITOR} on a connection of its own, telling the requests clients
 * send from the commands their scripts run inside Redis. Used only outside timed iterations: MONITOR slows Redis down.
 */
public final class MonitorTap implements AutoCloseable {

    private static final Pattern LINE = Pattern.compile("^\\+(\\d+)\\.(\\d+) \\[\\d+ ([^\\]]+)\\] \"([^\"]*)\"");

    private final Socket socket;

    private final List<Command> commands = new ArrayList<>();

    private final Thread reader;

    private long stopMicros;

    /**
     * One command: from a script ({@code lua}) or from a client connection, its name in lower case, and when Redis ran
     * it (microseconds since the epoch, on the server's clock, which is this machine's).
     */
    public record Command(boolean fromScript, String name, long atMicros) {
    }

    public MonitorTap(int port) {
        try {
            this.socket = new Socket();
            this.socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            this.socket.setSoTimeout(10_000);
            OutputStream out = this.socket.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(this.socket.getInputStream(), StandardCharsets.UTF_8));
            String ok = in.readLine();
            if (!"+OK".equals(ok)) {
                throw new IllegalStateException("MONITOR answered " + ok);
            }
            this.reader = new Thread(() -> read(in), "bench-monitor");
            this.reader.setDaemon(true);
            this.reader.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void read(BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                Command command = parse(line);
                if (command != null) {
                    synchronized (this.commands) {
                        this.commands.add(command);
                    }
                }
            }
        }
        catch (IOException ex) {
            // closed
        }
    }

    static Command parse(String line) {
        Matcher matcher = LINE.matcher(line);
        if (!matcher.find()) {
            return null;
        }
        long at = Long.parseLong(matcher.group(1)) * 1_000_000 + Long.parseLong(matcher.group(2));
        return new Command(matcher.group(3).equals("lua"), matcher.group(4).toLowerCase(java.util.Locale.ROOT), at);
    }

    /**
     * Stops recording and returns the commands Redis ran until now: lines still in flight are read for a short while,
     * and those of commands run after this call are left out.
     */
    public List<Command> stop() throws InterruptedException {
        this.stopMicros = nowMicros();
        Thread.sleep(300);
        close();
        this.reader.join(5_000);
        synchronized (this.commands) {
            return this.commands.stream().filter(command -> command.atMicros() <= this.stopMicros).toList();
        }
    }

    private static long nowMicros() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    @Override
    public void close() {
        try {
            this.socket.close();
        }
        catch (IOException ex) {
            // nothing to do
        }
    }
}
