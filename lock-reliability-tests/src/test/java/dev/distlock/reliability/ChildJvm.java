package dev.distlock.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A JVM started by a test to run a main class of the test classpath, whose stdout lines the test can wait for. */
final class ChildJvm implements AutoCloseable {

    private final Process process;

    private final List<String> lines = new ArrayList<>(); // guarded by this

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(this::readOutput, "child-jvm-output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    static ChildJvm start(Class<?> mainClass, String... args) throws IOException {
        return startWith(testClassPath(), mainClass, args);
    }

    /** This JVM's test class path (the one the children run by default). */
    static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    /** Starts a child on the given class path (for instance with another build's lock-core in place of this one's). */
    static ChildJvm startWith(String classpath, Class<?> mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-XX:TieredStopAtLevel=1", "-cp", classpath, mainClass.getName()));
        command.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private void readOutput() {
        try (BufferedReader reader = new BufferedReader(
                new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                synchronized (this) {
                    this.lines.add(line);
                    notifyAll();
                }
            }
        }
        catch (IOException ex) {
            // the process ended
        }
    }

    /** Waits for a line starting with {@code prefix} and returns it. */
    synchronized String awaitLine(String prefix, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            for (String line : this.lines) {
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("No line starting with '" + prefix + "' within " + limit + "; output: "
                        + this.lines);
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    synchronized List<String> output() {
        return List.copyOf(this.lines);
    }

    long pid() {
        return this.process.pid();
    }

    /** Sends a signal such as STOP or CONT with the system's kill command. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
        }
    }

    /** kill -9: the JVM dies with no shutdown hook, no release, no goodbye. */
    void killHard() throws InterruptedException {
        this.process.destroyForcibly();
        this.process.waitFor(10, TimeUnit.SECONDS);
    }

    int awaitExit(Duration limit) throws InterruptedException {
        if (!this.process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("The child JVM did not exit within " + limit + "; output: " + output());
        }
        return this.process.exitValue();
    }

    @Override
    public void close() throws Exception {
        if (this.process.isAlive()) {
            signal("CONT"); // a stopped process does not die of SIGTERM until continued
            this.process.destroyForcibly();
            this.process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
