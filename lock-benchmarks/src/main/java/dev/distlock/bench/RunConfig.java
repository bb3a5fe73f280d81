package dev.distlock.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.distlock.bench.clients.Implementation;

/**
 * How long and what to run. Full mode: a 10 s JVM warm-up per implementation, then 2 warm-up and 5 measured
 * iterations of 5 s per implementation and timed scenario, a 60 s watchdog window with 30 s leases. Quick mode (smoke
 * runs): a 3 s JVM warm-up, 1 warm-up and 3 measured iterations of 2 s, a 15 s watchdog window with 3 s leases.
 * In both, the non-blocking scenarios keep {@code inFlight} lock cycles in flight (--in-flight, 64 by default).
 */
public record RunConfig(boolean quick, Duration jvmWarmUp, int warmups, int iterations, Duration iteration, Duration watchdogWindow,
        Duration watchdogLease, Duration maxWait, List<Implementation> implementations, Set<String> scenarios,
        int inFlight, int heldLocks, Path out) {

    /** Lock cycles the async scenarios keep in flight unless --in-flight says otherwise. */
    static final int DEFAULT_IN_FLIGHT = 64;

    private static final int MAX_IN_FLIGHT = 4096;

    /** Locks scenario 9 holds unless --held-locks says otherwise. */
    static final int DEFAULT_HELD_LOCKS = 10_000;

    private static final int MAX_HELD_LOCKS = 200_000;

    static final String USAGE = """
            Usage: java -jar lock-benchmarks/target/lock-benchmarks.jar [--quick] [--scenarios=1,2,3,4,5,6,7,8,9,10,11]
                   [--implementations=distlock,redisson,spring-integration,raw-floor,fenced-floor,
                   raw-floor-async,fenced-floor-async,distlock-async,redisson-async]
                   [--in-flight=N] [--held-locks=N] [--out=FILE]
              --quick            short smoke run (about 10 minutes) instead of the full run (about 30 minutes)
              --scenarios        which scenarios to run (default all); 7 and 8 run the non-blocking APIs, 9 renewal
                                 at 10,000 held locks, 10 capacity per lock type (starts a 3-master Redis Cluster),
                                 11 leased semaphores of 5 permits (distlock and redisson only)
              --implementations  which implementations to compare (default all); each scenario runs those it covers
              --in-flight        lock cycles one thread keeps in flight in scenarios 7, 8 and 10 (default 64)
              --held-locks       locks scenario 9 holds while they are renewed (default 10,000; at most 200,000)
              --out              also write the markdown report to FILE, and each scenario's SVG chart beside it
                                 (scenario-N.svg in FILE's directory)
            """;

    static RunConfig parse(String... args) {
        boolean quick = false;
        List<Implementation> implementations = List.of(Implementation.values());
        Set<String> scenarios = new LinkedHashSet<>(List.of("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"));
        int inFlight = DEFAULT_IN_FLIGHT;
        int heldLocks = DEFAULT_HELD_LOCKS;
        Path out = null;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                throw new IllegalArgumentException(USAGE);
            }
            else if (arg.equals("--quick")) {
                quick = true;
            }
            else if (arg.startsWith("--scenarios=")) {
                scenarios = Arrays.stream(value(arg).split(","))
                    .map(String::trim)
                    .filter(id -> !id.isEmpty())
                    .collect(Collectors.toCollection(LinkedHashSet::new));
            }
            else if (arg.startsWith("--implementations=")) {
                implementations = Implementation.parse(value(arg));
            }
            else if (arg.startsWith("--in-flight=")) {
                inFlight = count("--in-flight", value(arg), MAX_IN_FLIGHT);
            }
            else if (arg.startsWith("--held-locks=")) {
                heldLocks = count("--held-locks", value(arg), MAX_HELD_LOCKS);
            }
            else if (arg.startsWith("--out=")) {
                out = Path.of(value(arg));
            }
            else {
                throw new IllegalArgumentException("unknown argument '" + arg + "'\n" + USAGE);
            }
        }
        if (implementations.isEmpty() || scenarios.isEmpty()) {
            throw new IllegalArgumentException("nothing to run\n" + USAGE);
        }
        return quick
                ? new RunConfig(true, Duration.ofSeconds(3), 1, 3, Duration.ofSeconds(2), Duration.ofSeconds(15), Duration.ofSeconds(3),
                        Duration.ofSeconds(30), implementations, scenarios, inFlight, heldLocks, out)
                : new RunConfig(false, Duration.ofSeconds(10), 2, 5, Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofSeconds(30),
                        Duration.ofSeconds(30), implementations, scenarios, inFlight, heldLocks, out);
    }

    private static int count(String option, String value, int max) {
        try {
            int count = Integer.parseInt(value.trim());
            if (count >= 1 && count <= max) {
                return count;
            }
        }
        catch (NumberFormatException ex) {
            // the message below says what is accepted
        }
        throw new IllegalArgumentException(option + " must be a whole number from 1 to " + max + ", not '" + value
                + "'\n" + USAGE);
    }

    private static String value(String arg) {
        return arg.substring(arg.indexOf('=') + 1);
    }

    public String mode() {
        return this.quick ? "quick" : "full";
    }

    /** The load time of one timed scenario for one implementation: warm-up plus measured iterations. */
    public Duration timedLoad() {
        return this.iteration.multipliedBy(this.warmups + this.iterations);
    }
}
